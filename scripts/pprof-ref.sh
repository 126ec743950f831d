# Sourced by the symbolize scripts: pprof_ref_setup DIR [module]
#
# Builds, into DIR, google/pprof's command as the reference (from the module
# at PPROF_REF_MOD, default /tmp/pprofref-mod, when there is one; else
# PPROF_REF, default /tmp/pprof-ref, is used as it is; without either, from
# a module of the version go.mod pins, fetched into DIR; "module" makes a
# module a must) and pprofx, both as make build builds pprofx (CGO_ENABLED=0:
# a static binary, no dynamic loader at start-up), and links binutils alone
# (addr2line, nm, objdump, c++filt) into DIR/tools: with llvm-symbolizer on
# PATH pprof would use that instead. Sets ref to pprof's path. See
# testdata/symbolize/ref/README.
pprof_ref_setup() {
	local dir=$1 need=${2:-} mod=${PPROF_REF_MOD:-/tmp/pprofref-mod}
	ref=${PPROF_REF:-/tmp/pprof-ref}
	if [ ! -f "$mod/go.mod" ] && [ ! -x "$ref" ]; then
		# Neither: a module of the version pprofx's go.mod pins, in DIR
		# (this needs the Go module proxy, as the build does).
		local v
		v=$(go list -m -f '{{.Version}}' github.com/google/pprof)
		mod=$dir/pprofref-mod
		mkdir "$mod"
		(cd "$mod" && go mod init pprofref >/dev/null 2>&1 && go get "github.com/google/pprof@$v" >/dev/null 2>&1) ||
			{ echo "could not fetch github.com/google/pprof@$v" >&2; exit 1; }
	fi
	if [ -f "$mod/go.mod" ]; then
		(cd "$mod" && CGO_ENABLED=0 go build -o "$dir/pprof-ref" github.com/google/pprof)
		ref=$dir/pprof-ref
	elif [ "$need" = module ]; then
		echo "no pprof module at $mod (see testdata/symbolize/ref/README)" >&2
		exit 1
	fi
	[ -x "$ref" ] || { echo "no google/pprof command at $ref (see testdata/symbolize/ref/README)" >&2; exit 1; }
	CGO_ENABLED=0 go build -tags grpcnotrace -o "$dir/pprofx" ./cmd/pprofx
	mkdir "$dir/tools"
	local t
	for t in addr2line nm objdump c++filt; do ln -s "$(command -v $t)" "$dir/tools/$t"; done
}
