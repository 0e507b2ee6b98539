package connector

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// opts returns the franz-go options of the properties, followed by more.
func (p *clientProps) opts(more ...kgo.Opt) ([]kgo.Opt, error) {
	o := []kgo.Opt{kgo.SeedBrokers(p.brokers...), kgo.ClientID(p.clientID)}
	if p.security == "SSL" || p.security == "SASL_SSL" {
		cfg := &tls.Config{MinVersion: tls.VersionTLS12}
		if p.caFile != "" {
			pem, err := os.ReadFile(p.caFile)
			if err != nil {
				return nil, fmt.Errorf("kafka: ssl.truststore.location: %w", err)
			}
			cfg.RootCAs = x509.NewCertPool()
			if !cfg.RootCAs.AppendCertsFromPEM(pem) {
				return nil, fmt.Errorf("kafka: ssl.truststore.location %s holds no PEM certificate", p.caFile)
			}
		}
		o = append(o, kgo.DialTLSConfig(cfg))
	}
	if p.user != "" {
		switch p.mechanism {
		case "PLAIN":
			o = append(o, kgo.SASL(plain.Auth{User: p.user, Pass: p.pass}.AsMechanism()))
		case "SCRAM-SHA-256":
			o = append(o, kgo.SASL(scram.Auth{User: p.user, Pass: p.pass}.AsSha256Mechanism()))
		case "SCRAM-SHA-512":
			o = append(o, kgo.SASL(scram.Auth{User: p.user, Pass: p.pass}.AsSha512Mechanism()))
		}
	}
	return append(o, more...), nil
}

// newClient connects a client with the properties and more options.
func (p *clientProps) newClient(more ...kgo.Opt) (*kgo.Client, error) {
	o, err := p.opts(more...)
	if err != nil {
		return nil, err
	}
	cl, err := kgo.NewClient(o...)
	if err != nil {
		return nil, fmt.Errorf("kafka: %w", err)
	}
	return cl, nil
}
