package site

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/pgspec/pgspec/gen/matrix"
	"github.com/pgspec/pgspec/internal/corpus"
)

// browser starts Debian's headless Chromium with a fresh profile and the
// flags that keep it off the network, or skips when it is not installed
// (never under CI, whose .ci/run installs it). Its console is collected:
// errors() lists every error, warning and uncaught exception so far.
func browser(t *testing.T) (ctx context.Context, errors func() []string) {
	t.Helper()
	path := ""
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("chromium is not installed; .ci/run installs Debian's chromium package")
		}
		t.Skip("chromium is not installed (apt-get install chromium)")
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("no-default-browser-check", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	)
	ctx, cancelCtx := chromedp.NewContext(alloc)
	t.Cleanup(func() { cancelCtx(); cancelAlloc() })
	var mu sync.Mutex
	var found []string
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleWarning || m.IsException() {
				mu.Lock()
				found = append(found, m.String())
				mu.Unlock()
			}
		}
	}()
	return ctx, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(found)
	}
}

// artifacts is where screenshots go: $PGSPEC_ARTIFACTS when set, else the
// test's artifact directory (kept with go test -artifacts).
func artifacts(t *testing.T) string {
	if dir := os.Getenv("PGSPEC_ARTIFACTS"); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	return t.ArtifactDir()
}

func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png, err := chromedp.Run(step(t, ctx), chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(artifacts(t), name)
	if err := os.WriteFile(file, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", file)
}

// step bounds one step, so a selector that never matches fails the test
// instead of hanging it; the browser has started, so the timeout does not
// stop it. The bound guards against a hang, not a slow machine: the first
// navigation of the 1.6 MB page took over 20 s at load 20 on two cores.
func step(t *testing.T, ctx context.Context) context.Context {
	return stepWithin(t, ctx, time.Minute)
}

// stepWithin bounds a step that does much work (a walk over every range of
// majors) by d instead.
func stepWithin(t *testing.T, ctx context.Context, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(ctx, d)
	t.Cleanup(cancel)
	return ctx
}

// eval runs a script in the page and decodes its result.
func eval[T any](t *testing.T, ctx context.Context, script string) T {
	t.Helper()
	return evalWithin[T](t, step(t, ctx), script)
}

// evalWithin is eval in a step of the caller's bound.
func evalWithin[T any](t *testing.T, ctx context.Context, script string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](script))
	if err != nil {
		t.Fatalf("%s: %v", script, err)
	}
	return v
}

func do(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(step(t, ctx), steps...); err != nil {
		t.Fatal(err)
	}
}

// choose picks value in the select with the id, as a reader does.
func choose(id, value string) chromedp.Action[chromedp.Void] {
	return chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(s => { s.value = %q; s.dispatchEvent(new Event('change')); })(document.getElementById(%q))`, value, id))
}

// focusedCell is the id of the grid cell that has the focus, or holds it.
const focusedCell = `(c => c ? c.id : '')(document.activeElement.closest('td'))`

// contrasts lists the grid cells, legend swatches, badges and controls
// with text as "what ratio", lowest contrast of text on background first.
const contrasts = `(() => {
	const lum = (css) => {
		const [r, g, b] = css.match(/[\d.]+/g).slice(0, 3).map(Number).map((v) => {
			v /= 255;
			return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
		});
		return 0.2126 * r + 0.7152 * g + 0.0722 * b;
	};
	const background = (el) => {
		for (; el; el = el.parentElement) {
			const c = getComputedStyle(el).backgroundColor;
			if (!c.startsWith('rgba(0, 0, 0, 0)')) return c;
		}
		return 'rgb(255, 255, 255)';
	};
	return [...document.querySelectorAll('.grid td, .sw, .badge, .controls label')].filter((el) => el.innerText.trim()).map((el) => {
		const [a, b] = [lum(getComputedStyle(el).color), lum(background(el))];
		return [el.id || el.className, (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)];
	}).sort((x, y) => x[1] - y[1]).map(([what, ratio]) => what + ' ' + ratio.toFixed(2));
})()`

const dialogOpen = `document.getElementById('detail-dialog').open`

// visibleRows lists the ids of the grid rows on screen.
const visibleRows = `[...document.querySelectorAll('.grid tbody tr')].filter(r => r.getClientRects().length > 0).map(r => r.id)`

// TestPageInChromium drives the page pgspec serve serves (the bytes of
// spec/matrix.html) in a real browser, as a reader uses it.
func TestPageInChromium(t *testing.T) {
	ctx, consoleErrors := browser(t)
	h := committed(t)
	handler, err := New(h, "en")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(handler)
	defer srv.Close()

	// What the grid must hold, read from the spec files themselves: every
	// slug any major documents, every replication command, every row of
	// its message flow, and the majors.
	var slugs []string
	var majors []string
	for _, s := range h.Specs {
		majors = append(majors, strconv.Itoa(s.Major))
		for _, m := range s.Messages {
			if !slices.Contains(slugs, m.Slug) {
				slugs = append(slugs, m.Slug)
			}
		}
		for _, c := range s.Commands {
			if !slices.Contains(slugs, c.Slug) {
				slugs = append(slugs, c.Slug)
			}
		}
		for _, slug := range matrix.FlowSlugs(s) {
			if !slices.Contains(slugs, slug) {
				slugs = append(slugs, slug)
			}
		}
	}

	start := time.Now()
	do(t, ctx, chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(chromedp.CSS("#layer-frontend-backend")))
	t.Logf("page timing (ms since navigation): %s; wall %v", eval[string](t, ctx, `(n => ['responseEnd', 'domInteractive', 'domContentLoadedEventEnd', 'loadEventEnd'].map(k => k + ' ' + Math.round(n[k])).join(', '))(performance.getEntriesByType('navigation')[0]) +
		', first-contentful-paint ' + Math.round((performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime)`), time.Since(start))
	if n := eval[int](t, ctx, `performance.getEntriesByType('resource').length`); n != 0 {
		t.Errorf("the page loaded %d resources; it must be self-contained", n)
	}

	// One row per message, one column per major, in every layer's grid.
	rows := eval[[]string](t, ctx, `[...document.querySelectorAll('.grid tbody tr')].map(r => r.id)`)
	slices.Sort(rows)
	slices.Sort(slugs)
	if !slices.Equal(rows, slugs) {
		t.Errorf("grid rows %v, want one per slug %v", rows, slugs)
	}
	heads := eval[[][]string](t, ctx, `[...document.querySelectorAll('.grid')].map(g => [...g.tHead.rows[0].cells].slice(1).map(c => c.textContent))`)
	for _, h := range heads {
		if !slices.Equal(h, majors) {
			t.Errorf("grid columns %v, want %v", h, majors)
		}
	}
	if bad := eval[[]string](t, ctx, `[...document.querySelectorAll('.grid tbody tr')].filter(r => r.querySelectorAll('td').length != `+strconv.Itoa(len(majors))+`).map(r => r.id)`); len(bad) > 0 {
		t.Errorf("rows without one cell per major: %v", bad)
	}
	screenshot(t, ctx, "desktop-en.png")

	// 17 → 18 BackendKeyData is a wire change; its detail sets the 4-byte key
	// of 17 against the variable one of 18.
	cell := eval[string](t, ctx, `document.getElementById('backend-key-data-18').className + ' ' + document.getElementById('backend-key-data-18').innerText`)
	if !strings.Contains(cell, "s-wire") || !strings.Contains(cell, "wire") {
		t.Errorf("BackendKeyData 18 cell: %q, want a wire change", cell)
	}
	do(t, ctx, chromedp.Click(chromedp.CSS("#backend-key-data-18 a")))
	if !eval[bool](t, ctx, dialogOpen) {
		t.Fatal("the cell's detail did not open")
	}
	before := eval[string](t, ctx, `document.querySelector('#detail-dialog .before .steps').innerText`)
	after := eval[string](t, ctx, `document.querySelector('#detail-dialog .after .steps').innerText`)
	if !strings.Contains(before, "Byte4") || strings.Contains(before, "Byten") || !strings.Contains(after, "Byten") || strings.Contains(after, "Byte4") {
		t.Errorf("BackendKeyData 17 → 18 layouts:\n17: %s\n18: %s\nwant Byte4 against Byten", before, after)
	}
	if marked := eval[[]string](t, ctx, `[...document.querySelectorAll('#detail-dialog .steps tr.ce')].map(r => r.innerText)`); len(marked) != 2 {
		t.Errorf("marked layout rows %q, want the secret key on each side", marked)
	}
	if hash := eval[string](t, ctx, `location.hash`); hash != "#backend-key-data-17-to-18" {
		t.Errorf("address while the detail is open: %q, want its permalink", hash)
	}
	screenshot(t, ctx, "desktop-detail.png")
	do(t, ctx, chromedp.KeyEvent(kb.Escape))
	if eval[bool](t, ctx, dialogOpen) {
		t.Error("Escape did not close the detail")
	}
	if focused := eval[string](t, ctx, focusedCell); focused != "backend-key-data-18" {
		t.Errorf("focus after closing the detail: %q, want back on the cell", focused)
	}

	// BASE_BACKUP took the option list in 15: the detail sets 14's keyword
	// syntax against 15's list, the row links to the command's page, and
	// rows that share a command word say which form they are.
	do(t, ctx, chromedp.Click(chromedp.CSS("#base-backup-15 a")))
	if !eval[bool](t, ctx, dialogOpen) {
		t.Fatal("BASE_BACKUP 15's detail did not open")
	}
	before = eval[string](t, ctx, `document.querySelector('#detail-dialog .before .steps').innerText`)
	after = eval[string](t, ctx, `document.querySelector('#detail-dialog .after .steps').innerText`)
	if !strings.Contains(before, "syntax keyword") || !strings.Contains(after, "syntax list") {
		t.Errorf("BASE_BACKUP 14 → 15 lines:\n14: %s\n15: %s\nwant the keyword syntax against the list", before, after)
	}
	if links := eval[[]string](t, ctx, `[...document.querySelectorAll('#detail-dialog .fields caption a')].map(a => a.getAttribute('href'))`); !slices.Contains(links, "/protocol/base-backup/?v=15") ||
		!slices.Contains(links, "https://www.postgresql.org/docs/15/protocol-replication.html#PROTOCOL-REPLICATION-BASE-BACKUP") {
		t.Errorf("BASE_BACKUP 15's detail links %q, want the manual's entry and the site's page", links)
	}
	screenshot(t, ctx, "desktop-command-detail.png")
	do(t, ctx, chromedp.KeyEvent(kb.Escape))
	newestMajor := majors[len(majors)-1]
	if got := eval[[]string](t, ctx, `['base-backup', 'start-replication-logical', 'create-replication-slot-legacy'].map(id => (r => r.querySelector('a').getAttribute('href') + ' ' + r.innerText.replace(/\s+/g, ' '))(document.getElementById(id).querySelector('th')))`); !slices.Equal(got, []string{
		"/protocol/base-backup/?v=" + newestMajor + " BASE_BACKUP",
		"/protocol/start-replication-logical/?v=" + newestMajor + " START_REPLICATION LOGICAL",
		"/protocol/create-replication-slot-legacy/?v=" + newestMajor + " CREATE_REPLICATION_SLOT older syntax"}) {
		t.Errorf("command rows' names and links: %q", got)
	}
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`document.getElementById('layer-commands').scrollIntoView()`))
	screenshot(t, ctx, "desktop-commands.png")
	do(t, ctx, chromedp.Focus(chromedp.CSS("#backend-key-data-18 a")))

	// Arrow keys walk the grid: left to 17's cell, down to the next message.
	do(t, ctx, chromedp.KeyEvent(kb.ArrowLeft))
	left := eval[string](t, ctx, focusedCell)
	do(t, ctx, chromedp.KeyEvent(kb.ArrowDown))
	if down := eval[string](t, ctx, focusedCell); left != "backend-key-data-17" || down != "bind-17" {
		t.Errorf("arrow keys from BackendKeyData 18: left to %q, down to %q; want backend-key-data-17, bind-17", left, down)
	}

	// Every class's text is readable on its colour (WCAG AA, 4.5:1).
	ratios := eval[[]string](t, ctx, contrasts)
	if len(ratios) < len(slugs)*len(majors)/2 {
		t.Fatalf("contrast measured on %d elements only", len(ratios))
	}
	t.Logf("lowest contrast of %d elements: %s", len(ratios), ratios[0])
	for _, r := range ratios {
		if ratio, _ := strconv.ParseFloat(r[strings.LastIndex(r, " ")+1:], 64); ratio < 4.5 {
			t.Errorf("text below 4.5:1 contrast: %s", r)
		}
	}
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`document.getElementById('layer-frontend-backend').scrollIntoView()`))
	screenshot(t, ctx, "desktop-grid.png")

	// "Only rows that changed" hides rows that never changed, keeps the others.
	all := eval[[]string](t, ctx, visibleRows)
	do(t, ctx, chromedp.Click(chromedp.CSS(`label[for="only-changed"]`)))
	changed := eval[[]string](t, ctx, visibleRows)
	if len(changed) == 0 || len(changed) >= len(all) || slices.Contains(changed, "bind") || !slices.Contains(changed, "backend-key-data") {
		t.Errorf("only changed: %d of %d rows shown (%v); want Bind hidden, BackendKeyData shown", len(changed), len(all), changed)
	}
	// From 15 to 18: the steps into 16, 17 and 18. CommandComplete changed
	// into 15 (outside), Stream Abort into 16 (inside).
	do(t, ctx, choose("from", "15"), choose("to", "18"))
	cols := eval[[]string](t, ctx, `[...document.querySelector('.grid').tHead.rows[0].cells].slice(1).filter(c => c.getClientRects().length > 0).map(c => c.textContent)`)
	if !slices.Equal(cols, []string{"16", "17", "18"}) {
		t.Errorf("columns from 15 to 18: %v", cols)
	}
	ranged := eval[[]string](t, ctx, visibleRows)
	if slices.Contains(ranged, "command-complete") || !slices.Contains(ranged, "logical-stream-abort") || !slices.Contains(ranged, "backend-key-data") {
		t.Errorf("changed rows from 15 to 18: %v", ranged)
	}
	screenshot(t, ctx, "desktop-15-18.png")
	// A range is at least one step wide: from the newest (19) becomes the
	// one before to the newest (18 to 19).
	newest, before := majors[len(majors)-1], majors[len(majors)-2]
	do(t, ctx, choose("from", newest))
	if got := eval[[]string](t, ctx, `[document.getElementById('from').value, document.getElementById('to').value]`); got[0] != before || got[1] != newest {
		t.Errorf("from %s: range %v, want %s to %s", newest, got, before, newest)
	}
	do(t, ctx, choose("from", "10"))

	// The language switch shows the Chinese texts. A translation-only change
	// is a link to its detail in Chinese only.
	const zhOnlyLinks = `[...document.querySelectorAll('td.zo a')].filter(a => a.getClientRects().length > 0).length`
	enLinks := eval[int](t, ctx, zhOnlyLinks)
	do(t, ctx, chromedp.Click(chromedp.CSS(`label[for="lang-zh"]`)))
	if zhLinks := eval[int](t, ctx, zhOnlyLinks); enLinks != 0 || zhLinks == 0 {
		t.Errorf("translation-only cells link to their detail: %d in English, %d in Chinese", enLinks, zhLinks)
	}
	h1 := eval[string](t, ctx, `document.querySelector('h1').innerText`)
	if h1 != "PostgreSQL 协议文档版本差异矩阵" || eval[string](t, ctx, `document.documentElement.lang`) != "zh-CN" {
		t.Errorf("after the switch to Chinese, the title reads %q", h1)
	}
	if label := eval[string](t, ctx, `document.getElementById('backend-key-data-18').innerText`); !strings.Contains(label, "线格式") {
		t.Errorf("BackendKeyData 18 in Chinese: %q", label)
	}
	if got := eval[[]string](t, ctx, `[document.getElementById('layer-commands-h').innerText, document.querySelector('#layer-commands thead th').innerText, document.querySelector('#create-replication-slot-legacy th').innerText.replace(/\s+/g, ' ')]`); !strings.HasPrefix(got[0], "复制命令") || got[1] != "命令" || got[2] != "CREATE_REPLICATION_SLOT 旧语法" {
		t.Errorf("the commands layer in Chinese: title, head, legacy row = %q", got)
	}
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`document.getElementById('layer-commands').scrollIntoView()`))
	screenshot(t, ctx, "desktop-zh-commands.png")
	do(t, ctx, chromedp.Click(chromedp.CSS("#create-replication-slot-17 a")))
	if got := eval[[]string](t, ctx, `[...document.querySelectorAll('#detail-dialog h4')].map(h => h.innerText)`); !slices.Equal(got, []string{"客户端写出与读到的内容", "手册原文"}) {
		t.Errorf("CREATE_REPLICATION_SLOT 16 → 17 in Chinese: headings %q", got)
	}
	screenshot(t, ctx, "desktop-zh-command-detail.png")
	do(t, ctx, chromedp.KeyEvent(kb.Escape))
	screenshot(t, ctx, "desktop-zh.png")

	// A permalink to a detail opens it.
	do(t, ctx, chromedp.Navigate(srv.URL+"/#logical-stream-abort-15-to-16"), chromedp.WaitReady(chromedp.CSS("#detail-dialog")))
	if text := eval[string](t, ctx, `document.querySelector('#detail-dialog h3').innerText`); !strings.Contains(text, "Stream Abort · 15 → 16") {
		t.Errorf("permalink opened %q", text)
	}

	// ?lang=zh opens the page in Chinese; a permalink to a translation-only
	// change opens it in Chinese too.
	do(t, ctx, chromedp.Navigate(srv.URL+"/?lang=zh"), chromedp.WaitReady(chromedp.CSS("h1")))
	if h1 := eval[string](t, ctx, `document.querySelector('h1').innerText`); h1 != "PostgreSQL 协议文档版本差异矩阵" {
		t.Errorf("?lang=zh: title %q", h1)
	}
	zhOnly := eval[string](t, ctx, `document.querySelector('article.detail[lang="zh-CN"]').id`)
	do(t, ctx, chromedp.Navigate(srv.URL+"/?lang=en#"+zhOnly), chromedp.WaitReady(chromedp.CSS("#detail-dialog")))
	if got := eval[[]string](t, ctx, `[document.documentElement.lang, String(document.getElementById('detail-dialog').open), document.querySelector('#detail-dialog .badge').innerText]`); got[0] != "zh-CN" || got[1] != "true" || got[2] != "仅译文变更" {
		t.Errorf("permalink to the translation-only %s: lang, open, badge = %q", zhOnly, got)
	}
	screenshot(t, ctx, "desktop-zh-detail.png")

	// On a phone the page does not scroll sideways: the grid scrolls in its box.
	do(t, ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile, chromedp.EmulateScale(2)),
		chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(chromedp.CSS("#layer-frontend-backend")))
	if w := eval[[]int](t, ctx, `[document.documentElement.scrollWidth, document.documentElement.clientWidth]`); w[0] > w[1] {
		t.Errorf("phone width: page is %dpx wide in a %dpx window", w[0], w[1])
	}
	screenshot(t, ctx, "phone-en.png")
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`document.getElementById('layer-logical-replication').scrollIntoView()`))
	screenshot(t, ctx, "phone-grid.png")
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`document.getElementById('layer-commands').scrollIntoView()`))
	screenshot(t, ctx, "phone-commands.png")
	do(t, ctx, chromedp.Click(chromedp.CSS("#backend-key-data-18 a")))
	if !eval[bool](t, ctx, dialogOpen) {
		t.Error("the cell's detail did not open on a phone")
	}
	if fit := eval[[]float64](t, ctx, `(d => [d.getBoundingClientRect().width, d.scrollWidth - d.clientWidth, innerWidth])(document.getElementById('detail-dialog'))`); fit[0] > fit[2] || fit[1] > 0 {
		t.Errorf("phone width: the detail is %vpx wide with %vpx hidden sideways, in a %vpx window", fit[0], fit[1], fit[2])
	}
	screenshot(t, ctx, "phone-detail.png")

	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}

// TestPageWithoutJavaScript reads the committed page as a file with scripts
// off: the grid, the language switch and the filter work, and each changed
// cell links to its detail below.
func TestPageWithoutJavaScript(t *testing.T) {
	ctx, consoleErrors := browser(t)
	file := filepath.Join(corpus.Root(), "spec", "matrix.html")
	do(t, ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
		return err
	}), chromedp.Navigate("file://"+file), chromedp.WaitVisible(chromedp.CSS("#layer-frontend-backend")))
	if js := eval[bool](t, ctx, `document.documentElement.classList.contains('js')`); js {
		t.Fatal("scripts ran")
	}
	href := eval[string](t, ctx, `document.querySelector('#backend-key-data-18 a').getAttribute('href')`)
	if shown := eval[bool](t, ctx, fmt.Sprintf(`document.getElementById(%q).getClientRects().length > 0`, strings.TrimPrefix(href, "#"))); !shown {
		t.Errorf("the detail %s is not on the page", href)
	}
	all := eval[[]string](t, ctx, visibleRows)
	do(t, ctx, chromedp.Click(chromedp.CSS(`label[for="only-changed"]`)), chromedp.Click(chromedp.CSS(`label[for="lang-zh"]`)))
	changed := eval[[]string](t, ctx, visibleRows)
	if len(changed) == 0 || len(changed) >= len(all) || slices.Contains(changed, "bind") {
		t.Errorf("only changed without scripts: %d of %d rows", len(changed), len(all))
	}
	if h1 := eval[string](t, ctx, `document.querySelector('h1').innerText`); h1 != "PostgreSQL 协议文档版本差异矩阵" {
		t.Errorf("title in Chinese without scripts: %q", h1)
	}
	screenshot(t, ctx, "nojs-zh.png")
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}

// brokenWords lists the words of the grid's message names that the
// browser wraps inside (a word laid out on more than one line), and counts
// the names that wrap at all, so the check is seen to look at wrapped names.
const brokenWords = `(() => {
	const broken = [];
	let wrapped = 0;
	for (const a of document.querySelectorAll('.grid th[scope="row"] a')) {
		if (a.getClientRects().length === 0) continue;
		if (a.getClientRects().length > 1) wrapped++;
		const walk = document.createTreeWalker(a, NodeFilter.SHOW_TEXT);
		for (let n = walk.nextNode(); n; n = walk.nextNode()) {
			const re = /[^ \n\t]+/g;
			for (let m = re.exec(n.data); m; m = re.exec(n.data)) {
				const r = document.createRange();
				r.setStart(n, m.index);
				r.setEnd(n, m.index + m[0].length);
				const lines = new Set([...r.getClientRects()].map((c) => Math.round(c.top)));
				if (lines.size > 1) broken.push(m[0]);
			}
		}
	}
	return [String(wrapped), ...broken];
})()`

// firstScreen tells how much of the first grid is on the first screen:
// the bottom of its fifth row against the window's height, and whether
// the introduction and the facts are folded.
const firstScreen = `(() => {
	const row = document.querySelector('.grid tbody tr:nth-child(5)').getBoundingClientRect();
	return [row.bottom <= innerHeight, !document.getElementById('about').open, !document.getElementById('facts').open];
})()`

// TestPageOpensOnTheAnswer: the grid is on the first screen on a desktop
// and on a phone, the range and the filter are in the address, narrow the
// facts and the details too, names wrap only between words, and the
// counts read right in the singular.
func TestPageOpensOnTheAnswer(t *testing.T) {
	ctx, consoleErrors := browser(t)
	h := committed(t)
	handler, err := New(h, "en")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(handler)
	defer srv.Close()
	for _, screen := range []struct {
		name          string
		width, height int64
		mobile        bool
	}{{"desktop", 1400, 1000, false}, {"phone", 390, 844, true}} {
		opts := []chromedp.EmulateViewportOption{chromedp.EmulateScale(1)}
		if screen.mobile {
			opts = []chromedp.EmulateViewportOption{chromedp.EmulateMobile, chromedp.EmulateScale(2)}
		}
		do(t, ctx, chromedp.EmulateViewport(screen.width, screen.height, opts...),
			chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(chromedp.CSS("#layer-frontend-backend")))
		if got := eval[[]bool](t, ctx, firstScreen); !slices.Equal(got, []bool{true, true, true}) {
			t.Errorf("%s %dx%d: fifth grid row on the first screen, intro folded, facts folded = %v", screen.name, screen.width, screen.height, got)
		}
		screenshot(t, ctx, "first-screen-"+screen.name+".png")
		if screen.mobile {
			got := eval[[]string](t, ctx, brokenWords)
			if wrapped, _ := strconv.Atoi(got[0]); wrapped == 0 || len(got) > 1 {
				t.Errorf("phone: %s names wrap; words broken inside: %q", got[0], got[1:])
			}
		}
	}

	// The range goes into the address, and an address with a range opens on it.
	do(t, ctx, chromedp.EmulateViewport(1400, 1000), chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(chromedp.CSS("#layer-frontend-backend")),
		choose("from", "15"), choose("to", "18"), chromedp.Click(chromedp.CSS(`label[for="only-changed"]`)))
	if q := eval[string](t, ctx, `location.search`); q != "?from=15&to=18&changed=1" {
		t.Errorf("address after from 15 to 18, only changed: %q", q)
	}
	do(t, ctx, chromedp.Navigate(srv.URL+"/?to=18&from=15&changed=1"), chromedp.WaitVisible(chromedp.CSS("#layer-frontend-backend")))
	state := eval[[]string](t, ctx, `[document.getElementById('from').value, document.getElementById('to').value, String(document.getElementById('only-changed').checked)]`)
	cols := eval[[]string](t, ctx, `[...document.querySelector('.grid').tHead.rows[0].cells].slice(1).filter(c => c.getClientRects().length > 0).map(c => c.textContent)`)
	if !slices.Equal(state, []string{"15", "18", "true"}) || !slices.Equal(cols, []string{"16", "17", "18"}) {
		t.Errorf("opened ?to=18&from=15&changed=1: from, to, only changed = %v, columns %v", state, cols)
	}
	// The flow changes follow the range and the filter: only the steps into
	// 16, 17 and 18 that changed something (direct TLS in 17, 3.2 in 18).
	flow := eval[[]string](t, ctx, `[...document.querySelectorAll('#flow-changes tbody tr[data-major]')].filter(r => r.getClientRects().length > 0).map(r => r.dataset.major + (r.classList.contains('same') ? ' same' : ''))`)
	if !slices.Contains(flow, "17") || !slices.Contains(flow, "18") || slices.ContainsFunc(flow, func(m string) bool { return m != "16" && m != "17" && m != "18" }) {
		t.Errorf("flow changes from 15 to 18, only changed: rows into %q", flow)
	}
	do(t, ctx, chromedp.ScrollIntoView(chromedp.CSS("#flow-changes")))
	screenshot(t, ctx, "flow-changes-15-18.png")

	// The facts show the range's majors, the details its steps.
	do(t, ctx, chromedp.Click(chromedp.CSS("#facts > summary")))
	facts := eval[[]string](t, ctx, `[...document.querySelectorAll('#facts tbody tr')].filter(r => r.getClientRects().length > 0).map(r => r.cells[0].innerText)`)
	if !slices.Equal(facts, []string{"15", "16", "17", "18"}) {
		t.Errorf("facts from 15 to 18: majors %v", facts)
	}
	steps := eval[[]string](t, ctx, `[...document.querySelectorAll('#details article.detail')].filter(d => d.getClientRects().length > 0).map(d => d.dataset.to)`)
	all := eval[int](t, ctx, `document.querySelectorAll('#details article.detail').length`)
	if len(steps) == 0 || len(steps) >= all {
		t.Errorf("details from 15 to 18: %d of %d shown", len(steps), all)
	}
	for _, to := range steps {
		if to != "16" && to != "17" && to != "18" {
			t.Errorf("details from 15 to 18 show a step into %s", to)
		}
	}
	screenshot(t, ctx, "range-15-18-facts.png")

	// Every count reads right: walk every range with only changed rows and
	// check each layer's count in its own noun; some range must leave
	// exactly one row in a layer.
	// 45 ranges, each filtering every layer's rows: a minute on a loaded machine.
	counts := evalWithin[[]string](t, stepWithin(t, ctx, 2*time.Minute), `(() => {
		const out = [];
		const f = document.getElementById('from'), t = document.getElementById('to');
		const ms = [...f.options].map(o => o.value);
		for (let i = 0; i < ms.length - 1; i++) for (let j = i + 1; j < ms.length; j++) {
			f.value = ms[i]; f.dispatchEvent(new Event('change'));
			t.value = ms[j]; t.dispatchEvent(new Event('change'));
			for (const s of document.querySelectorAll('.layer .shown')) out.push(s.closest('.layer').id + ' ' + s.innerText.trim());
		}
		return out;
	})()`)
	singular := 0
	for _, c := range counts {
		layer, count, _ := strings.Cut(c, " ")
		n, rest, _ := strings.Cut(count, " ")
		noun := map[string]string{"layer-commands": "command", "layer-flow": "list"}[layer]
		if noun == "" {
			noun = "message"
		}
		want := noun + "s shown"
		if n == "1" {
			want = noun + " shown"
			singular++
		}
		if rest != want {
			t.Errorf("%s count %q, want %q after the number", layer, count, want)
		}
	}
	if singular == 0 {
		t.Errorf("no range leaves one message in a layer; counts %q", counts)
	}
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}

// TestMessagePageInChromium walks the site as a reader does: from the
// matrix to a message's page, to another major, to another comparison and
// to the other language, on a desktop and on a phone.
func TestMessagePageInChromium(t *testing.T) {
	ctx, consoleErrors := browser(t)
	h := committed(t)
	handler, err := New(h, "en")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(handler)
	defer srv.Close()
	newest := h.Specs[len(h.Specs)-1].Major
	const heading = `[document.querySelector('h1').innerText, document.getElementById('cmp-h').innerText, location.pathname + location.search]`

	do(t, ctx, chromedp.EmulateViewport(1400, 1000), chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(chromedp.CSS("#layer-frontend-backend")),
		chromedp.Click(chromedp.CSS(`#logical-update th a`)), chromedp.WaitVisible(chromedp.CSS("#cmp-h")))
	if got := eval[[]string](t, ctx, heading); got[0] != fmt.Sprintf("Update (logical replication) PostgreSQL %d", newest) ||
		got[2] != fmt.Sprintf("/protocol/logical-update/?v=%d", newest) {
		t.Errorf("the matrix's Update row led to %q", got)
	}
	if n := eval[int](t, ctx, `performance.getEntriesByType('resource').length`); n != 0 {
		t.Errorf("the message page loaded %d resources", n)
	}
	do(t, ctx, chromedp.Click(chromedp.CSS(`nav.majors a[href$="?v=15"]`)), chromedp.WaitVisible(chromedp.CSS("#cmp-h")))
	if got := eval[[]string](t, ctx, heading); got[0] != "Update (logical replication) PostgreSQL 15" || !strings.HasPrefix(got[1], "Compared 14 → 15 changed annotation change") {
		t.Errorf("15: %q", got)
	}
	screenshot(t, ctx, "message-desktop-en.png")
	do(t, ctx, chromedp.Click(chromedp.CSS(`nav.against a[href*="against=13"]`)), chromedp.WaitVisible(chromedp.CSS("#cmp-h")))
	diff := eval[[]string](t, ctx, `[...document.querySelectorAll('pre.diff .add')].map(s => s.innerText)`)
	if got := eval[[]string](t, ctx, heading); !strings.HasPrefix(got[1], "Compared 13 → 15 changed wire change") || len(diff) == 0 {
		t.Errorf("15 against 13: %q, added lines %q", got, diff)
	}
	screenshot(t, ctx, "message-desktop-against-13.png")
	do(t, ctx, chromedp.Click(chromedp.CSS(`a.lang`)), chromedp.WaitVisible(chromedp.CSS("#cmp-h")))
	if got := eval[[]string](t, ctx, heading); got[0] != "Update（逻辑复制） PostgreSQL 15" || got[2] != "/zh/protocol/logical-update/?v=15" ||
		eval[string](t, ctx, `document.documentElement.lang`) != "zh-CN" {
		t.Errorf("the switch to Chinese: %q", got)
	}
	screenshot(t, ctx, "message-desktop-zh.png")
	// The category leads to the list of everything, which leads to a command's page.
	do(t, ctx, chromedp.Click(chromedp.CSS(`.crumbs a[href="/zh/protocol/"]`)), chromedp.WaitVisible(chromedp.CSS("ul.list")))
	screenshot(t, ctx, "list-desktop-zh.png")
	do(t, ctx, chromedp.Click(chromedp.CSS(`ul.list a[href^="/zh/protocol/base-backup/"]`)), chromedp.WaitVisible(chromedp.CSS("#cmp-h")))
	if got := eval[[]string](t, ctx, heading); !strings.HasPrefix(got[0], "BASE_BACKUP（复制命令） PostgreSQL ") {
		t.Errorf("the list's BASE_BACKUP led to %q", got)
	}
	screenshot(t, ctx, "command-desktop-zh.png")

	// On a phone the page does not scroll sideways.
	do(t, ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile, chromedp.EmulateScale(2)),
		chromedp.Navigate(srv.URL+"/zh/protocol/backend-key-data/?v=18"), chromedp.WaitVisible(chromedp.CSS("#cmp-h")))
	if w := eval[[]int](t, ctx, `[document.documentElement.scrollWidth, document.documentElement.clientWidth]`); w[0] > w[1] {
		t.Errorf("phone width: the message page is %dpx wide in a %dpx window", w[0], w[1])
	}
	screenshot(t, ctx, "message-phone-zh.png")
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}
