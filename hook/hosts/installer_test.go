package hosts

import "testing"

// TestInstallerNames: each host's installer has the host's name, which Installer finds it
// by.
func TestInstallerNames(t *testing.T) {
	for _, h := range All {
		i, ok := h.(Installable)
		if !ok {
			continue
		}
		if i.Installer().Name != h.Name() {
			t.Errorf("host %q: installer named %q", h.Name(), i.Installer().Name)
		}
		if got, ok := Installer(h.Name()); !ok || got != i.Installer() {
			t.Errorf("Installer(%q) = %v, %v; want the host's", h.Name(), got, ok)
		}
	}
	if _, ok := Installer("nosuchhost"); ok {
		t.Error(`Installer("nosuchhost") found one`)
	}
}
