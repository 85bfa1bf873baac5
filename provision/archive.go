package provision

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// IsArchive says whether path names an archive Unpack reads.
func IsArchive(path string) bool {
	p := strings.ToLower(path)
	return strings.HasSuffix(p, ".zip") || strings.HasSuffix(p, ".tar.gz") || strings.HasSuffix(p, ".tgz")
}

// Unpack unpacks a distribution archive (.zip, .tar.gz) once into
// cache/dists/<the archive's sha256>/ and returns the distribution's folder
// in it (the archive's one top folder, as releases are packed). What a run
// measured is summed from the unpacked files (Checksum), as for a folder.
func Unpack(archive, cache string) (string, error) {
	f, err := os.Open(archive)
	if err != nil {
		return "", fmt.Errorf("open the archive: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("read %s: %w", archive, err)
	}
	sum := hex.EncodeToString(h.Sum(nil))
	dest := filepath.Join(cache, "dists", sum[:16])
	if _, err := os.Stat(filepath.Join(dest, ".complete")); err != nil {
		if err := os.RemoveAll(dest); err != nil {
			return "", err
		}
		if err := unpack(archive, dest); err != nil {
			return "", fmt.Errorf("unpack %s: %w", archive, err)
		}
		if err := os.WriteFile(filepath.Join(dest, ".complete"), nil, 0o644); err != nil {
			return "", err
		}
	}
	return root(dest), nil
}

// root is the distribution inside an unpacked archive: its one folder, when
// the archive holds one folder and nothing else.
func root(dir string) string {
	es, err := os.ReadDir(dir)
	if err != nil {
		return dir
	}
	var dirs []string
	files := 0
	for _, e := range es {
		if e.Name() == ".complete" {
			continue
		}
		if e.IsDir() {
			dirs = append(dirs, e.Name())
		} else {
			files++
		}
	}
	if len(dirs) == 1 && files == 0 {
		return root(filepath.Join(dir, dirs[0]))
	}
	return dir
}

func unpack(archive, dest string) error {
	if strings.HasSuffix(strings.ToLower(archive), ".zip") {
		return unzip(archive, dest)
	}
	return untar(archive, dest)
}

// inside joins name to dest and refuses a name that leaves it ("../x").
func inside(dest, name string) (string, error) {
	p := filepath.Join(dest, name)
	if p != dest && !strings.HasPrefix(p, dest+string(os.PathSeparator)) {
		return "", fmt.Errorf("the entry %q points outside the archive's folder", name)
	}
	return p, nil
}

func unzip(archive, dest string) error {
	r, err := zip.OpenReader(archive)
	if err != nil {
		return err
	}
	defer r.Close()
	for _, f := range r.File {
		p, err := inside(dest, f.Name)
		if err != nil {
			return err
		}
		if f.FileInfo().IsDir() {
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return err
		}
		err = writeFile(p, rc, f.Mode().Perm())
		rc.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

func untar(archive, dest string) error {
	f, err := os.Open(archive)
	if err != nil {
		return err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	tr := tar.NewReader(gz)
	for {
		hd, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		p, err := inside(dest, hd.Name)
		if err != nil {
			return err
		}
		switch hd.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := writeFile(p, tr, os.FileMode(hd.Mode).Perm()); err != nil {
				return err
			}
		case tar.TypeSymlink:
			if filepath.IsAbs(hd.Linkname) {
				return fmt.Errorf("the link %q points outside the archive", hd.Name)
			}
			if _, err := inside(dest, filepath.Join(filepath.Dir(hd.Name), hd.Linkname)); err != nil {
				return err
			}
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			if err := os.Symlink(hd.Linkname, p); err != nil {
				return err
			}
		}
	}
}

func writeFile(p string, r io.Reader, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	if mode == 0 {
		mode = 0o644
	}
	out, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode|0o200)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, r); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
