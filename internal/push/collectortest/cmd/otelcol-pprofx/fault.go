package main

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/consumer/consumererror"
	"go.opentelemetry.io/collector/consumer/xconsumer"
	"go.opentelemetry.io/collector/pdata/pprofile"
	"go.opentelemetry.io/collector/processor"
	"go.opentelemetry.io/collector/processor/xprocessor"
)

// faultConfig configures the pprofx_fault processor: it refuses the first
// FailFirst requests with an error, and passes every later one on. The
// receiver in front of it turns the error into its answer, as it does for
// any component behind it (a full queue, a memory limiter, a backend
// refusing): a gRPC status (code and details as given) and, over HTTP, the
// status code the receiver maps it to, with Retry-After from RetryInfo.
type faultConfig struct {
	FailFirst int `mapstructure:"fail_first"`
	// Code is a gRPC code name (resource_exhausted, unavailable, ...), or
	// "permanent" for a consumererror.NewPermanent error with no status.
	Code string `mapstructure:"code"`
	// RetryDelay, when set, is sent as a google.rpc.RetryInfo detail.
	RetryDelay time.Duration `mapstructure:"retry_delay"`
	Message    string        `mapstructure:"message"`
}

func (c *faultConfig) Validate() error {
	if c.Code == "permanent" {
		return nil
	}
	if _, err := grpcCode(c.Code); err != nil {
		return err
	}
	return nil
}

func grpcCode(name string) (codes.Code, error) {
	var c codes.Code
	if err := c.UnmarshalJSON([]byte(`"` + strings.ToUpper(name) + `"`)); err != nil {
		return 0, fmt.Errorf("pprofx_fault: code %q: %v", name, err)
	}
	return c, nil
}

func newFaultFactory() xprocessor.Factory {
	return xprocessor.NewFactory(component.MustNewType("pprofx_fault"),
		func() component.Config {
			return &faultConfig{Code: "unavailable", Message: "pprofx_fault refuses this request"}
		},
		xprocessor.WithProfiles(func(_ context.Context, _ processor.Settings, cfg component.Config, next xconsumer.Profiles) (xprocessor.Profiles, error) {
			return &faultProcessor{cfg: cfg.(*faultConfig), next: next}, nil
		}, component.StabilityLevelDevelopment))
}

type faultProcessor struct {
	cfg  *faultConfig
	next xconsumer.Profiles
	seen atomic.Int64
}

func (p *faultProcessor) Start(context.Context, component.Host) error { return nil }
func (p *faultProcessor) Shutdown(context.Context) error              { return nil }

func (p *faultProcessor) Capabilities() consumer.Capabilities {
	return consumer.Capabilities{MutatesData: false}
}

func (p *faultProcessor) ConsumeProfiles(ctx context.Context, pd pprofile.Profiles) error {
	n := p.seen.Add(1)
	if n > int64(p.cfg.FailFirst) {
		return p.next.ConsumeProfiles(ctx, pd)
	}
	msg := fmt.Sprintf("%s (request %d of the %d refused)", p.cfg.Message, n, p.cfg.FailFirst)
	if p.cfg.Code == "permanent" {
		return consumererror.NewPermanent(fmt.Errorf("%s", msg))
	}
	code, err := grpcCode(p.cfg.Code)
	if err != nil {
		return err
	}
	st := status.New(code, msg)
	if p.cfg.RetryDelay > 0 {
		if st, err = st.WithDetails(&errdetails.RetryInfo{RetryDelay: durationpb.New(p.cfg.RetryDelay)}); err != nil {
			return err
		}
	}
	return st.Err()
}
