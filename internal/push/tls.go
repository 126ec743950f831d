package push

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
)

// tlsConfig builds the TLS settings from the certificate files, and the
// state that tells a refused client certificate from a lost connection.
func tlsConfig(cfg *Config) (*tls.Config, *clientCerts, error) {
	conf := &tls.Config{MinVersion: tls.VersionTLS12}
	if cfg.Certificate != "" {
		pem, err := os.ReadFile(cfg.Certificate)
		if err != nil {
			return nil, nil, fmt.Errorf("--certificate: %v", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, nil, fmt.Errorf("--certificate %s: no PEM certificate in it", cfg.Certificate)
		}
		conf.RootCAs = pool
	}
	if (cfg.ClientCertificate == "") != (cfg.ClientKey == "") {
		return nil, nil, errors.New("--client-certificate and --client-key go together")
	}
	cc := &clientCerts{}
	if cfg.ClientCertificate != "" {
		cert, err := tls.LoadX509KeyPair(cfg.ClientCertificate, cfg.ClientKey)
		if err != nil {
			return nil, nil, fmt.Errorf("client certificate: %v", err)
		}
		cc.cert = &cert
	}
	conf.GetClientCertificate = cc.get
	return conf, cc, nil
}

// clientCerts hands the client certificate (if any) to servers that ask
// for one, and remembers that one did. A server that requires a
// certificate and refuses the one it got (or none) ends the connection
// after the handshake: the client then sees, by a race, the server's TLS
// alert, a reset, a broken pipe or a connection that "could not be
// established". So a failure to get any answer, from a server that asked
// for a client certificate and has never answered a request, is taken as
// that refusal: said so, and not retried.
type clientCerts struct {
	cert     *tls.Certificate // nil: none given
	asked    atomic.Bool      // a server asked for a client certificate
	answered atomic.Bool      // a request got an answer (TLS was accepted)
}

func (c *clientCerts) get(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
	c.asked.Store(true)
	if c.cert == nil {
		return &tls.Certificate{}, nil // none: the server decides
	}
	return c.cert, nil
}

// answered records that a request got an answer.
func (c *clientCerts) answeredOne() {
	if c != nil {
		c.answered.Store(true)
	}
}

// refused returns the error to report for a failure to get an answer
// (whose text is msg) when it is the server refusing the client
// certificate, or nil.
func (c *clientCerts) refused(msg string) *Error {
	if c == nil || !c.asked.Load() || c.answered.Load() {
		return nil
	}
	if c.cert == nil {
		return &Error{Msg: "the server requires a client certificate (mutual TLS) and ended the connection without one: give --client-certificate FILE and --client-key FILE (" + msg + ")"}
	}
	return &Error{Msg: "the server asked for a client certificate and refused the one given: is it signed by a CA the server trusts, and valid now? (" + msg + ")"}
}
