package formats

import (
	"bufio"
	"bytes"
	"fmt"

	"github.com/pprofx/pprofx/internal/codec/bundle"
	"github.com/pprofx/pprofx/internal/detect"
	"github.com/pprofx/pprofx/internal/memlimit"
)

func init() {
	readsInPlace[detect.Bundle] = true
	// A bundle read as an input gives all its profiles, each named as it was
	// at merge. (pprofx unpack and list read bundles directly, section by
	// section, instead.)
	registerReader(detect.Bundle, func(r *bufio.Reader, in *Input, opts ReadOptions) error {
		limit := opts.MaxInputSize
		if limit <= 0 {
			limit = DefaultMaxInputSize
		}
		// A regular file is read in place, block by block, as unpack
		// reads it; any other input (a pipe, a compressed file, a file
		// whose original bytes are kept) is read whole first, and counts
		// in the run's memory target (memlimit.Reserve) beside the
		// blocks, which the bundle's reader counts as it decompresses
		// them.
		src, size := opts.input, opts.inputSize
		if src == nil || size > limit {
			data, err := readAll(r, opts.sizeHint)
			if err != nil {
				return err
			}
			memlimit.Reserve(int64(len(data)))
			src, size = bytes.NewReader(data), int64(len(data))
		}
		br, err := bundle.OpenLimit(src, size, limit)
		if err != nil {
			return err
		}
		// Every profile is kept (unless given to Each): together they are
		// bounded by the limit.
		br.LimitTotal(limit)
		br.LimitMemory(opts.memory())
		in.Facts = append(in.Facts, [2]string{"bundle version", fmt.Sprint(bundle.Version)}, [2]string{"profiles", fmt.Sprint(br.Len())})
		// A summary (inspect, given each profile as it is read) needs
		// neither the stacks' frames nor the locations and functions.
		hollow := opts.Summary && opts.Each != nil && !opts.KeepOriginal
		for i := 0; i < br.Len(); i++ {
			last := i == br.Len()-1 // the tables are released as it is built
			it := Item{Name: br.Entry(i).Name}
			var err error
			switch {
			case hollow:
				var c bundle.Counts
				it.Profile, c, err = br.Hollow(i, last)
				it.Counts = &c
			case last:
				it.Profile, err = br.ProfileLast(i)
			default:
				it.Profile, err = br.Profile(i)
			}
			if err != nil {
				return err
			}
			if opts.Each != nil && !opts.KeepOriginal {
				if err := opts.Each(it); err != nil {
					return err
				}
				continue
			}
			in.Items = append(in.Items, it)
		}
		return nil
	})
}
