package landscapefs

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	clientcmdlatest "k8s.io/client-go/tools/clientcmd/api/latest"
)

// ErrKubeconfigRefused is the error of a kubeconfig of the landscape's that confined mode refuses.
var ErrKubeconfigRefused = errors.New("confined mode refuses the kubeconfig")

// refusal is an error of a kind (errors.Is) whose message says all.
type refusal struct {
	kind error
	msg  string
}

func (r refusal) Error() string { return r.msg }
func (r refusal) Unwrap() error { return r.kind }

// CheckKubeconfig refuses, in confined mode, a kubeconfig of the landscape's own (Kubeconfig
// returned own) that would make the tool run a program or read a file outside the landscape
// directory: an exec credential plugin, an auth provider (which run or read what their
// configuration says), and certificate, key or token files outside the directory. Such a
// kubeconfig could otherwise send the operator's credentials (a service account token, a cloud
// login) to a server the landscape chose. The file is decoded with client-go's own codec, so that
// what is checked is what client-go would load.
func (d *Dir) CheckKubeconfig(name string) error {
	if !d.policy.Confined {
		return nil
	}
	name, err := expandHome(name)
	if err != nil {
		return err
	}
	data, err := d.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // nothing to run or read; connecting reports it missing
	}
	if err != nil {
		return err
	}
	cfg := clientcmdapi.NewConfig()
	if len(data) > 0 {
		decoded, _, err := clientcmdlatest.Codec.Decode(data, &schema.GroupVersionKind{Version: clientcmdlatest.Version, Kind: "Config"}, cfg)
		if err != nil {
			return fmt.Errorf("kubeconfig %s: %w", name, err)
		}
		cfg = decoded.(*clientcmdapi.Config)
	}
	base := filepath.Dir(name)
	var problems []string
	for _, user := range slices.Sorted(maps.Keys(cfg.AuthInfos)) {
		ai := cfg.AuthInfos[user]
		if ai == nil {
			continue
		}
		if ai.Exec != nil {
			problems = append(problems, fmt.Sprintf("user %q runs the exec credential plugin %q", user, ai.Exec.Command))
		}
		if ai.AuthProvider != nil {
			problems = append(problems, fmt.Sprintf("user %q uses the auth provider %q", user, ai.AuthProvider.Name))
		}
		for field, ref := range map[string]string{"client-certificate": ai.ClientCertificate, "client-key": ai.ClientKey, "tokenFile": ai.TokenFile} {
			if msg := d.reference(base, ref); msg != "" {
				problems = append(problems, fmt.Sprintf("user %q: %s %s", user, field, msg))
			}
		}
	}
	for _, cluster := range slices.Sorted(maps.Keys(cfg.Clusters)) {
		c := cfg.Clusters[cluster]
		if c == nil {
			continue
		}
		if msg := d.reference(base, c.CertificateAuthority); msg != "" {
			problems = append(problems, fmt.Sprintf("cluster %q: certificate-authority %s", cluster, msg))
		}
	}
	if len(problems) > 0 {
		slices.Sort(problems)
		return refusal{kind: ErrKubeconfigRefused, msg: fmt.Sprintf("kubeconfig %s is inside the landscape directory, and confined mode refuses what it would run or read: %s; "+
			"credentials that need a program belong in the operator's kubeconfig (KUBECONFIG, ~/.kube/config), which a cluster block uses when it names none",
			name, strings.Join(problems, "; "))}
	}
	return nil
}

// reference checks a file a kubeconfig at base names (client-go resolves relative ones against
// the kubeconfig's directory); it returns what is wrong, or "".
func (d *Dir) reference(base, ref string) string {
	if ref == "" {
		return ""
	}
	name := ref
	if !filepath.IsAbs(ref) {
		name = filepath.Join(base, ref)
	}
	if _, err := d.inside(name); err != nil {
		return fmt.Sprintf("%s is outside the landscape directory", ref)
	}
	return ""
}
