// Command push-client is the push gateway tests' real Go client: it pushes with client_golang's
// push package (the way Go batch jobs push), driven by command-line arguments, so that a test can
// send the same push to Pushgateway and to Portico and compare.
//
//	push-client -url URL -job JOB [-method put|post|delete] [-group name=value]... [-format protobuf|text]
//	            [-counter name=value]... [-gauge name=value]... [-histogram name=v1,v2,...]...
//	            [-native-histogram name=v1,v2,...]... [-float-histogram name]...
//
// It prints "ok" and exits 0 when the gateway accepted the request; otherwise it prints the push
// package's error (which carries the status code and the gateway's answer) and exits 1.
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/push"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"google.golang.org/protobuf/proto"
)

// pairs collects repeated name=value arguments in order.
type pairs [][2]string

func (p *pairs) String() string { return fmt.Sprint(*p) }

func (p *pairs) Set(s string) error {
	name, value, ok := strings.Cut(s, "=")
	if !ok {
		return fmt.Errorf("%q is not name=value", s)
	}
	*p = append(*p, [2]string{name, value})
	return nil
}

// names collects repeated plain arguments.
type names []string

func (n *names) String() string { return strings.Join(*n, ",") }

func (n *names) Set(s string) error { *n = append(*n, s); return nil }

func floats(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// floatHistogram is a native histogram with float counts (schema 0, a zero bucket and two
// positive buckets), which client_golang's Histogram never produces (its counts are integers), so
// it is built as the protobuf message itself and pushed through a Gatherer.
func floatHistogram(name string) *dto.MetricFamily {
	return &dto.MetricFamily{
		Name: proto.String(name),
		Help: proto.String("A float native histogram."),
		Type: dto.MetricType_HISTOGRAM.Enum(),
		Metric: []*dto.Metric{{
			Histogram: &dto.Histogram{
				SampleCountFloat: proto.Float64(4.5),
				SampleSum:        proto.Float64(10.25),
				Schema:           proto.Int32(0),
				ZeroThreshold:    proto.Float64(0.001),
				ZeroCountFloat:   proto.Float64(0.5),
				PositiveSpan:     []*dto.BucketSpan{{Offset: proto.Int32(0), Length: proto.Uint32(2)}},
				PositiveCount:    []float64{1.5, 2.5},
			},
		}},
	}
}

func run() error {
	var (
		url, job, method, format string
		group, counters, gauges  pairs
		histograms, natives      pairs
		floatHistograms          names
	)
	flag.StringVar(&url, "url", "", "the gateway's base URL")
	flag.StringVar(&job, "job", "", "the job label")
	flag.StringVar(&method, "method", "put", "put (Push), post (Add) or delete (Delete)")
	flag.StringVar(&format, "format", "protobuf", "protobuf (delimited, the push package's default) or text")
	flag.Var(&group, "group", "a grouping label name=value (repeatable)")
	flag.Var(&counters, "counter", "a counter name=value (repeatable)")
	flag.Var(&gauges, "gauge", "a gauge name=value (repeatable)")
	flag.Var(&histograms, "histogram", "a classic histogram name=observations (repeatable)")
	flag.Var(&natives, "native-histogram", "a native histogram (integer counts) name=observations (repeatable)")
	flag.Var(&floatHistograms, "float-histogram", "a native histogram with float counts, by name (repeatable)")
	flag.Parse()

	reg := prometheus.NewRegistry()
	for _, c := range counters {
		v, err := strconv.ParseFloat(c[1], 64)
		if err != nil {
			return err
		}
		m := prometheus.NewCounter(prometheus.CounterOpts{Name: c[0], Help: "A counter."})
		m.Add(v)
		reg.MustRegister(m)
	}
	for _, g := range gauges {
		v, err := strconv.ParseFloat(g[1], 64)
		if err != nil {
			return err
		}
		m := prometheus.NewGauge(prometheus.GaugeOpts{Name: g[0], Help: "A gauge."})
		m.Set(v)
		reg.MustRegister(m)
	}
	for i, list := range [2]pairs{histograms, natives} {
		for _, h := range list {
			obs, err := floats(h[1])
			if err != nil {
				return err
			}
			opts := prometheus.HistogramOpts{Name: h[0], Help: "A histogram.", Buckets: []float64{1, 2, 5}}
			if i == 1 {
				// Native only: no classic buckets, schema 3 (factor 1.1), the default zero bucket.
				opts = prometheus.HistogramOpts{Name: h[0], Help: "A native histogram.", NativeHistogramBucketFactor: 1.1}
			}
			m := prometheus.NewHistogram(opts)
			for _, o := range obs {
				m.Observe(o)
			}
			reg.MustRegister(m)
		}
	}
	gatherers := prometheus.Gatherers{reg}
	if len(floatHistograms) > 0 {
		gatherers = append(gatherers, prometheus.GathererFunc(func() ([]*dto.MetricFamily, error) {
			var out []*dto.MetricFamily
			for _, n := range floatHistograms {
				out = append(out, floatHistogram(n))
			}
			return out, nil
		}))
	}

	p := push.New(url, job).Gatherer(gatherers)
	for _, g := range group {
		p = p.Grouping(g[0], g[1])
	}
	switch format {
	case "protobuf":
		p = p.Format(expfmt.NewFormat(expfmt.TypeProtoDelim))
	case "text":
		p = p.Format(expfmt.NewFormat(expfmt.TypeTextPlain))
	default:
		return fmt.Errorf("unknown -format %q (protobuf, text)", format)
	}
	switch method {
	case "put":
		return p.Push()
	case "post":
		return p.Add()
	case "delete":
		return p.Delete()
	}
	return fmt.Errorf("unknown -method %q (put, post, delete)", method)
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println("ok")
}
