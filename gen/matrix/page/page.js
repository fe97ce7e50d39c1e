// pgspec matrix page: the range of majors, the "only changed" filter that
// follows it, and the detail dialog. Everything else works without it.
(() => {
	"use strict";
	const root = document.documentElement;
	root.classList.add("js");
	const $ = (sel, el = document) => el.querySelector(sel);
	const $$ = (sel, el = document) => Array.from(el.querySelectorAll(sel));
	const from = $("#from"), to = $("#to"), only = $("#only-changed"), zh = $("#lang-zh");
	const majors = $$("option", from).map((o) => Number(o.value));
	// The address carries the state, so a link shows the same view:
	// ?lang=zh, ?from=15&to=18, ?changed=1.
	const params = new URLSearchParams(location.search);
	const defaultLang = root.lang;
	const asked = document.getElementById(`lang-${params.get("lang")}`);
	if (asked && asked.name === "lang") asked.checked = true;
	for (const [sel, key] of [[from, "from"], [to, "to"]]) {
		if (majors.includes(Number(params.get(key)))) sel.value = params.get(key);
	}
	if (params.get("changed") === "1") only.checked = true;
	const first = majors[0];

	// A column shows the step into its major, so "from 15 to 18" shows the
	// steps into 16, 17 and 18; the first major's column (present or
	// absent) shows when the range starts there. The facts show the majors
	// of the range, the details its steps.
	function apply(moved) {
		let a = Number(from.value), b = Number(to.value);
		if (a >= b) {
			// Keep the range at least one step wide, moving the other end.
			if (moved === to) {
				b = Math.max(b, majors[1]);
				a = majors[majors.indexOf(b) - 1];
			} else {
				a = Math.min(a, majors[majors.length - 2]);
				b = majors[majors.indexOf(a) + 1];
			}
			from.value = a;
			to.value = b;
		}
		const inRange = (m) => m > a && m <= b;
		root.lang = zh.checked ? "zh-CN" : "en";
		for (const el of $$("[data-major]")) {
			const m = Number(el.dataset.major);
			el.hidden = !(inRange(m) || (m === first && a === first));
		}
		for (const tr of $$("[data-fact-major]")) {
			const m = Number(tr.dataset.factMajor);
			tr.hidden = m < a || m > b;
		}
		let details = 0;
		for (const d of $$("article.detail")) {
			d.hidden = !inRange(Number(d.dataset.to));
			if (!d.hidden) details++;
		}
		$(".none-in-range").hidden = details > 0;
		for (const layer of $$(".layer")) {
			let shown = 0;
			for (const tr of $$("tbody tr", layer)) {
				const changed = $$("td.chg", tr).some((td) => inRange(Number(td.dataset.major)));
				tr.hidden = only.checked && !changed;
				if (!tr.hidden) shown++;
			}
			$(".shown .n", layer).textContent = shown;
			$(".shown .one", layer).hidden = shown !== 1;
			$(".shown .many", layer).hidden = shown === 1;
			$(".none-changed", layer).hidden = shown > 0;
		}
		const lang = zh.checked ? "zh-CN" : "en";
		const set = (key, value, def) => (value === def ? params.delete(key) : params.set(key, value));
		set("lang", lang === "zh-CN" ? "zh" : "en", defaultLang === "zh-CN" ? "zh" : "en");
		set("from", String(a), String(first));
		set("to", String(b), String(majors[majors.length - 1]));
		set("changed", only.checked ? "1" : "0", "0");
		const query = params.toString();
		history.replaceState(null, "", location.pathname + (query ? "?" + query : "") + location.hash);
	}
	for (const el of [from, to]) el.addEventListener("change", () => apply(el));
	for (const el of $$('input[name="lang"], #only-changed')) el.addEventListener("change", () => apply());
	apply();

	// The detail of a cell opens in a dialog over the grid; its address is
	// the detail's permalink, so a shared link opens the same dialog.
	const dialog = $("#detail-dialog"), body = $("#detail-body");
	let opener = null;
	function show(id) {
		const detail = id && document.getElementById(id);
		if (!detail || !detail.classList.contains("detail")) return false;
		if (detail.lang === "zh-CN" && !zh.checked) {
			// A translation-only change is shown to Chinese readers only.
			zh.checked = true;
			apply();
		}
		const copy = detail.cloneNode(true);
		copy.removeAttribute("id");
		body.replaceChildren(copy);
		dialog.setAttribute("aria-label", $("h3", copy).textContent);
		if (!dialog.open) dialog.showModal();
		return true;
	}
	document.addEventListener("click", (e) => {
		const link = e.target.closest("a.cell");
		if (!link || e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey) return;
		if (show(link.hash.slice(1))) {
			e.preventDefault();
			opener = link;
			history.replaceState(null, "", link.hash);
		}
	});
	dialog.addEventListener("click", (e) => {
		if (e.target === dialog) dialog.close();
	});
	dialog.addEventListener("close", () => {
		history.replaceState(null, "", location.pathname + location.search);
		if (opener) opener.focus();
		opener = null;
	});
	// Arrow keys move between the cells of a grid, as in a spreadsheet: to
	// the cell's link when it has one, else to the cell itself.
	const visible = (el) => el.getClientRects().length > 0;
	const focusCell = (cell) => {
		if (!cell) return;
		const target = cell.querySelector("a") || cell;
		if (target === cell) cell.tabIndex = -1;
		target.focus();
	};
	document.addEventListener("keydown", (e) => {
		const cell = e.target.closest && e.target.closest(".grid tbody td, .grid tbody th");
		const step = { ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0] }[e.key];
		if (!cell || !step || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
		const rows = $$("tr", cell.closest("tbody")).filter(visible);
		const row = cell.parentElement;
		const col = Array.from(row.children).indexOf(cell);
		if (step[0]) {
			const next = rows[rows.indexOf(row) + step[0]];
			focusCell(next && next.children[col]);
		} else {
			const cells = Array.from(row.children).filter(visible);
			focusCell(cells[cells.indexOf(cell) + step[1]]);
		}
		e.preventDefault();
	});

	const fromHash = () => show(decodeURIComponent(location.hash.slice(1)));
	window.addEventListener("hashchange", fromHash);
	fromHash();
})();
