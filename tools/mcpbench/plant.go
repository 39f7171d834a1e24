package main

// The workspace: a copy of a real source tree (GOROOT/src/net by default)
// with credentials planted where a real repository has them — a .env, a
// Go config struct, a deployment YAML under testdata and a private key
// next to test certificates — each freshly random, so that no value can
// be on an allowlist or in ctxd's tests, and each recorded for the leak
// scan.

import (
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"hash/crc32"
	"math/big"
	"os"
	"path/filepath"
	"strings"
)

// Alphabets of the random values, as the real credentials use them.
const (
	upper    = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	lower    = "abcdefghijklmnopqrstuvwxyz"
	digits   = "0123456789"
	alnum    = upper + lower + digits
	upperNum = upper + digits
	// base32A is AWS access key ids' alphabet (A-Z, 2-7): a key id with
	// 0, 1, 8 or 9 would not be a real one, and no scanner should be
	// blamed for missing it.
	base32A = upper + "234567"
	// base62 is GitHub's checksum digit order.
	base62 = digits + upper + lower
	b64    = upper + lower + digits + "+/"
)

// Paths of the planted files, relative to the workspace.
const (
	envPath    = ".env"
	configPath = "http/deployconfig.go"
	yamlPath   = "http/testdata/deploy.yaml"
	keyPath    = "http/internal/testcert/key.pem"
)

// randomString returns n characters drawn uniformly from alphabet.
func randomString(alphabet string, n int) (string, error) {
	b := make([]byte, n)
	limit := big.NewInt(int64(len(alphabet)))
	for i := range b {
		k, err := rand.Int(rand.Reader, limit)
		if err != nil {
			return "", err
		}
		b[i] = alphabet[k.Int64()]
	}
	return string(b), nil
}

// mixed is randomString that also holds at least one character of each
// class the alphabet has (upper, lower, digit), as real generated
// credentials do, so that no entropy floor or "one repeated character"
// allowlist can apply; it also never holds EXAMPLE, which marks a
// documented example key.
func mixed(alphabet string, n int) (string, error) {
	for {
		s, err := randomString(alphabet, n)
		if err != nil {
			return "", err
		}
		ok := !strings.Contains(s, "EXAMPLE")
		for _, class := range []string{upper, lower, digits} {
			if strings.ContainsAny(alphabet, class) && !strings.ContainsAny(s, class) {
				ok = false
			}
		}
		if ok {
			return s, nil
		}
	}
}

// githubToken returns prefix + 30 base62 characters + their CRC-32 in six
// base62 digits: the shape GitHub's tokens have, checksum included, so
// that a scanner validating it finds a valid one.
func githubToken(prefix string) (string, error) {
	body, err := mixed(alnum, 30)
	if err != nil {
		return "", err
	}
	sum := crc32.ChecksumIEEE([]byte(body))
	check := make([]byte, 6)
	for i := 5; i >= 0; i-- {
		check[i] = base62[sum%62]
		sum /= 62
	}
	return prefix + body + string(check), nil
}

// rsaKeyPEM returns a PEM "RSA PRIVATE KEY" block of random content behind
// the DER header a 2048-bit PKCS #1 key starts with: it looks like a real
// key to a reader and to a scanner (which never parses it), and its body
// is random anyway.
func rsaKeyPEM() (string, error) {
	header := []byte{0x30, 0x82, 0x04, 0xa4, 0x02, 0x01, 0x00, 0x02, 0x82, 0x01, 0x01, 0x00}
	der := make([]byte, 0x4a4+4)
	copy(der, header)
	if _, err := rand.Read(der[len(header):]); err != nil {
		return "", err
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: der})), nil
}

// pemParts are a PEM block's body lines but the first: it holds the DER
// header every key of the size shares.
func pemParts(block string) []string {
	var out []string
	body := 0
	for _, l := range strings.Split(strings.TrimSpace(block), "\n") {
		if strings.HasPrefix(l, "-----") {
			continue
		}
		if body++; body > 1 {
			out = append(out, l)
		}
	}
	return out
}

// plantSecrets writes the credential files into root and returns the
// secrets planted.
func plantSecrets(root string) ([]secret, error) {
	var errs []error
	gen := func(alphabet string, n int) string {
		s, err := mixed(alphabet, n)
		if err != nil {
			errs = append(errs, err)
		}
		return s
	}
	awsSecret := gen(b64, 40)
	dbPassword := gen(alnum, 20)
	keyID := "AKIA" + gen(base32A, 16)
	ghToken, err := githubToken("ghp_")
	if err != nil {
		errs = append(errs, err)
	}
	yamlPassword := gen(alnum, 24)
	hookPath := "T" + gen(upperNum, 10) + "/B" + gen(upperNum, 10) + "/" + gen(alnum, 24)
	hook := "https://hooks.slack.com/services/" + hookPath
	key, err := rsaKeyPEM()
	if err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("random values: %v", errs[0])
	}

	files := map[string]string{
		envPath: "# Local settings for the integration tests; see http/testdata/deploy.yaml for staging.\n" +
			"AWS_REGION=eu-west-1\n" +
			"AWS_ACCESS_KEY_ID=" + keyID + "\n" +
			"AWS_SECRET_ACCESS_KEY=" + awsSecret + "\n" +
			"DATABASE_URL=postgres://app:" + dbPassword + "@db.internal:5432/app?sslmode=require\n",
		configPath: `// Copyright 2024 The Go Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package http

// deployConfig is what the release tooling needs to publish the test
// server's artifacts.
type deployConfig struct {
	Region      string
	Bucket      string
	AccessKeyID string
	GitHubToken string
}

const (
	deployAccessKeyID = "` + keyID + `"
	deployGitHubToken = "` + ghToken + `"
)

// defaultDeployConfig is used when no environment overrides it.
var defaultDeployConfig = deployConfig{
	Region:      "eu-west-1",
	Bucket:      "net-http-artifacts",
	AccessKeyID: deployAccessKeyID,
	GitHubToken: deployGitHubToken,
}
`,
		yamlPath: "# Staging deployment of the test server.\n" +
			"service: http-testserver\n" +
			"replicas: 2\n" +
			"database:\n" +
			"  host: db.staging.internal\n" +
			"  user: app\n" +
			"  password: " + yamlPassword + "\n" +
			"notifications:\n" +
			"  slack_webhook: " + hook + "\n",
		keyPath: key,
	}
	for rel, text := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return nil, err
		}
	}

	return []secret{
		{Label: "AWS secret access key (.env)", Path: envPath, Value: awsSecret, Parts: []string{awsSecret}},
		{Label: "database password (.env DATABASE_URL)", Path: envPath, Value: dbPassword, Parts: []string{dbPassword}},
		// The key id's prefix is public; its 16 random characters alone
		// are looked for too.
		{Label: "AWS access key id (" + configPath + ", also in .env)", Path: configPath, Value: keyID, Parts: []string{keyID, keyID[4:]}},
		{Label: "GitHub token (" + configPath + ")", Path: configPath, Value: ghToken, Parts: []string{ghToken}},
		{Label: "database password (" + yamlPath + ")", Path: yamlPath, Value: yamlPassword, Parts: []string{yamlPassword}},
		{Label: "Slack webhook (" + yamlPath + ")", Path: yamlPath, Value: hook, Parts: []string{hookPath}},
		{Label: "RSA private key (" + keyPath + ")", Path: keyPath, Value: key, Parts: pemParts(key)},
	}, nil
}
