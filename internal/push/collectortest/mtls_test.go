package collectortest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gp "github.com/google/pprof/profile"
)

// pki is a certificate authority and what it signed, as PEM files.
type pki struct {
	dir     string
	caCert  *x509.Certificate
	caKey   *ecdsa.PrivateKey
	CA      string // the CA's certificate
	serial  int64
	created int
}

func newPKI(t testing.TB, name string) *pki {
	t.Helper()
	p := &pki{dir: t.TempDir()}
	key := genKey(t)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	p.caCert, _ = x509.ParseCertificate(der)
	p.caKey = key
	p.serial = 1
	p.CA = filepath.Join(p.dir, "ca.pem")
	writePEM(t, p.CA, "CERTIFICATE", der)
	return p
}

func genKey(t testing.TB) *ecdsa.PrivateKey {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

func writePEM(t testing.TB, path, typ string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

// issue signs a certificate for a server at 127.0.0.1 or for a client,
// and writes it and its key.
func (p *pki) issue(t testing.TB, name string, server bool) (cert, key string) {
	t.Helper()
	k := genKey(t)
	p.serial++
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(p.serial), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature,
	}
	if server {
		tmpl.IPAddresses = []net.IP{net.ParseIP("127.0.0.1")}
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	} else {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.caCert, &k.PublicKey, p.caKey)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	p.created++
	cert = filepath.Join(p.dir, fmt.Sprintf("%s-%d.pem", name, p.created))
	key = filepath.Join(p.dir, fmt.Sprintf("%s-%d-key.pem", name, p.created))
	writePEM(t, cert, "CERTIFICATE", der)
	writePEM(t, key, "EC PRIVATE KEY", kder)
	return cert, key
}

// TestMutualTLS: the collector's OTLP receiver requires client
// certificates signed by its CA (client_ca_file). pprofx delivers with
// --certificate, --client-certificate and --client-key, and with the
// OTEL_EXPORTER_OTLP_* variables; without a client certificate, or with one
// another CA signed, it is refused at once (no retries) with one line that
// says so. HTTP and gRPC.
func TestMutualTLS(t *testing.T) {
	ca := newPKI(t, "pprofx test CA")
	serverCert, serverKey := ca.issue(t, "collector", true)
	clientCert, clientKey := ca.issue(t, "pprofx", false)
	other := newPKI(t, "another CA")
	strangerCert, strangerKey := other.issue(t, "stranger", false)

	c := newCollector(t, collectorOpts{tlsCert: serverCert, tlsKey: serverKey, clientCA: ca.CA})
	c.start(t)
	files := some(t)
	want := map[string][]*gp.Profile{}
	deliver := func(label string, code int, stderr string) {
		t.Helper()
		if code != 0 || !strings.Contains(stderr, " 0 retries") {
			t.Errorf("%s: exit %d: %s", label, code, stderr)
			return
		}
		for f, ps := range sent(t, files) {
			want[label+": "+f] = ps
		}
	}
	refused := func(label string, code int, stderr, hint string) {
		t.Helper()
		var lines []string
		for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
			if !strings.HasPrefix(l, "pprofx: pushed ") {
				lines = append(lines, l)
			}
		}
		if code != 1 || len(lines) != 1 || !strings.Contains(lines[0], hint) || !strings.Contains(stderr, " 0 retries") ||
			!strings.Contains(stderr, "pushed 0 profiles") {
			t.Errorf("%s: want exit 1, one line with %q and no retries; got exit %d: %s", label, hint, code, stderr)
		}
	}
	for _, proto := range []string{"http/protobuf", "grpc"} {
		ep := "https://" + c.HTTP
		if proto == "grpc" {
			ep = "https://" + c.GRPC
		}
		args := []string{"push", "--endpoint", ep, "--protocol", proto, "--retry-initial", "100ms", "--certificate", ca.CA}
		code, stderr := pprofx(t, append(append(args, "--client-certificate", clientCert, "--client-key", clientKey), files...)...)
		deliver(proto+" with flags", code, stderr)

		code, stderr = pprofx(t, append(args, files...)...)
		refused(proto+" without a client certificate", code, stderr, "--client-certificate")

		code, stderr = pprofx(t, append(append(args, "--client-certificate", strangerCert, "--client-key", strangerKey), files...)...)
		refused(proto+" with a client certificate of another CA", code, stderr, "refused the one given")
	}
	// The OTLP variables, the profiles-specific ones for gRPC.
	t.Run("env", func(t *testing.T) {
		t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "https://"+c.HTTP)
		t.Setenv("OTEL_EXPORTER_OTLP_CERTIFICATE", ca.CA)
		t.Setenv("OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE", clientCert)
		t.Setenv("OTEL_EXPORTER_OTLP_CLIENT_KEY", clientKey)
		code, stderr := pprofx(t, append([]string{"push"}, files...)...)
		deliver("http/protobuf with OTEL_EXPORTER_OTLP_*", code, stderr)
		t.Setenv("OTEL_EXPORTER_OTLP_PROFILES_ENDPOINT", "https://"+c.GRPC)
		t.Setenv("OTEL_EXPORTER_OTLP_PROFILES_PROTOCOL", "grpc")
		t.Setenv("OTEL_EXPORTER_OTLP_PROFILES_CLIENT_CERTIFICATE", clientCert)
		t.Setenv("OTEL_EXPORTER_OTLP_PROFILES_CLIENT_KEY", clientKey)
		t.Setenv("OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE", strangerCert)
		t.Setenv("OTEL_EXPORTER_OTLP_CLIENT_KEY", strangerKey)
		code, stderr = pprofx(t, append([]string{"push"}, files...)...)
		deliver("grpc with OTEL_EXPORTER_OTLP_PROFILES_*", code, stderr)
	})
	sameProfiles(t, want, received(t, c.output(t)))
}
