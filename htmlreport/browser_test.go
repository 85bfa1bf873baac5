package htmlreport

import (
	"context"
	"fmt"
	"image/color"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/tsbench/tsbench/charts"
)

// chromium finds the browser: TSBENCH_CHROMIUM (scripts/test sets it after
// scripts/chromium installed Debian's), else chromium on the PATH outside CI.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("TSBENCH_CHROMIUM"); p != "" {
		return p
	}
	if os.Getenv("CI") != "" {
		t.Fatal("TSBENCH_CHROMIUM is not set: CI must install Chromium with scripts/chromium (scripts/test does)")
	}
	for _, n := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	t.Skip("no Chromium: run bash scripts/chromium (Debian's package), then go test ./htmlreport")
	return ""
}

// figureDrawn is what the browser measured of one chart.
type figureDrawn struct {
	Name    string   `json:"name"`
	WantW   int      `json:"wantW"`
	WantH   int      `json:"wantH"`
	W       float64  `json:"w"`
	H       float64  `json:"h"`
	Shapes  int      `json:"shapes"`
	Texts   int      `json:"texts"`
	Colours []string `json:"colours"`
}

const measure = `Array.from(document.querySelectorAll('figure[data-chart]')).map(f => {
  const svg = f.querySelector('svg');
  const r = svg ? svg.getBoundingClientRect() : {width: 0, height: 0};
  const colours = new Set();
  if (svg) for (const e of svg.querySelectorAll('path')) {
    const cs = getComputedStyle(e);
    colours.add(cs.stroke); colours.add(cs.fill);
  }
  return {name: f.dataset.chart, wantW: +f.dataset.width, wantH: +f.dataset.height, w: r.width, h: r.height,
    shapes: svg ? svg.querySelectorAll('path').length : 0, texts: svg ? svg.querySelectorAll('text').length : 0,
    colours: Array.from(colours)};
})`

func rgb(c color.NRGBA) string { return fmt.Sprintf("rgb(%d, %d, %d)", c.R, c.G, c.B) }

// TestInBrowser opens the pages in headless Chromium: no console error or
// exception, and every chart drew at its size, with the colours of its
// series (which come through the page's style sheet).
func TestInBrowser(t *testing.T) {
	exe := chromium(t)
	dir := t.TempDir()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.UserDataDir(filepath.Join(dir, "profile")),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-quic", true), chromedp.WindowSize(1400, 1000))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	for name, mk := range map[string]func(*testing.T) ([]byte, charts.Set){"comparison": comparisonPage, "runs": runsPage} {
		t.Run(name, func(t *testing.T) {
			page, set := mk(t)
			path := filepath.Join(dir, name+".html")
			if err := os.WriteFile(path, page, 0o644); err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			var problems []string
			listen := func(ev any) {
				mu.Lock()
				defer mu.Unlock()
				switch e := ev.(type) {
				case *runtime.EventExceptionThrown:
					problems = append(problems, "exception: "+e.ExceptionDetails.Text)
				case *runtime.EventConsoleAPICalled:
					if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeWarning {
						msg := ""
						for _, a := range e.Args {
							msg += " " + string(a.Value) + a.Description
						}
						problems = append(problems, fmt.Sprintf("console %s:%s", e.Type, msg))
					}
				case *log.EventEntryAdded:
					if e.Entry.Level == log.EntryLevelError || e.Entry.Level == log.EntryLevelWarning {
						problems = append(problems, fmt.Sprintf("log %s: %s %s", e.Entry.Level, e.Entry.Text, e.Entry.URL))
					}
				}
			}
			ctx, cancel := chromedp.NewContext(actx, chromedp.WithListener(listen))
			defer cancel()
			ctx, cancelT := context.WithTimeout(ctx, 90*time.Second)
			defer cancelT()
			if _, err := chromedp.Call(ctx, log.Enable, cdp.Empty{}); err != nil {
				t.Fatalf("start %s: %v", exe, err)
			}
			if err := chromedp.Do(ctx, chromedp.Navigate("file://"+path), chromedp.WaitReady("body")); err != nil {
				t.Fatalf("open %s in %s: %v", path, exe, err)
			}
			drawn, err := chromedp.Run(ctx, chromedp.Evaluate[[]figureDrawn](measure))
			if err != nil {
				t.Fatalf("measure the charts: %v", err)
			}
			shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(60))
			if err != nil {
				t.Fatalf("screenshot: %v", err)
			}
			if d := os.Getenv("TSBENCH_SCREENSHOT_DIR"); d != "" {
				os.WriteFile(filepath.Join(d, name+".jpg"), shot, 0o644)
			}
			mu.Lock()
			for _, p := range problems {
				t.Errorf("%s page: %s", name, p)
			}
			mu.Unlock()
			if len(drawn) != len(set.Charts) {
				t.Fatalf("the browser found %d charts, the page has %d", len(drawn), len(set.Charts))
			}
			for i, f := range drawn {
				c := set.Charts[i]
				if f.Name != c.Name || abs(f.W-float64(f.WantW)) > 1 || abs(f.H-float64(f.WantH)) > 1 || f.WantW == 0 {
					t.Errorf("%s: drawn %gx%g px, want %dx%d", f.Name, f.W, f.H, f.WantW, f.WantH)
				}
				if f.Shapes < 10 || f.Texts < 5 {
					t.Errorf("%s: %d shapes and %d texts: not a chart", f.Name, f.Shapes, f.Texts)
				}
				have := map[string]bool{}
				for _, col := range f.Colours {
					have[col] = true
				}
				for _, s := range c.Series {
					if want := rgb(s.RGB()); !have[want] {
						t.Errorf("%s: series %q should draw in %s; the browser saw %v", f.Name, s.Name, want, f.Colours)
					}
				}
			}
		})
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
