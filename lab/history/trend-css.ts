/** Inline stylesheet of trend.html: self-contained, readable on screen and in print. */

/** Fill and text colour per cell outcome (and "absent"); same palette as matrix.html. */
export const OUTCOME_COLOURS = {
  pass: { bg: '#2da44e', fg: '#ffffff' },
  fail: { bg: '#cf222e', fg: '#ffffff' },
  infra: { bg: '#57606a', fg: '#ffffff' },
  expected: { bg: '#e3a008', fg: '#1f2328' },
  skipped: { bg: '#d0d7de', fg: '#1f2328' },
  absent: { bg: 'transparent', fg: '#8c959f' },
} as const;

/** Run status colours for column headers and the per-preset strips. */
export const STATUS_COLOURS = {
  passed: '#2da44e',
  failed: '#cf222e',
  infra: '#57606a',
  interrupted: '#9a6700',
} as const;

/** The page's stylesheet. */
export function trendCss(): string {
  const outcome = Object.entries(OUTCOME_COLOURS)
    .map(([o, c]) => `.o-${o}{background:${c.bg};color:${c.fg}}`)
    .join('\n');
  const status = Object.entries(STATUS_COLOURS)
    .map(([s, c]) => `.s-${s}{border-top:5px solid ${c}} .dot.s-${s}{background:${c};border:0}`)
    .join('\n');
  return `
*{box-sizing:border-box}
body{margin:0;font:14px/1.4 "DejaVu Sans","Liberation Sans",system-ui,sans-serif;color:#1f2328;background:#f6f8fa}
a{color:inherit}
.banner{padding:12px 24px;font-size:18px;font-weight:700;text-align:center}
.banner-emulated{background:repeating-linear-gradient(135deg,#6f42c1 0 24px,#5a32a3 24px 48px);color:#fff;border-bottom:4px solid #3b1f70}
.banner-emulated small{display:block;font-size:13px;font-weight:400;opacity:.9}
header{padding:14px 24px 10px;background:#fff;border-bottom:1px solid #d0d7de}
h1{margin:0 0 8px;font-size:22px}
h2{margin:0 0 10px;font-size:18px}
h3{margin:16px 0 6px;font-size:15px}
h3.fail{color:#cf222e} h3.flaky{color:#bc4c00}
.headline{display:flex;flex-wrap:wrap;gap:10px;align-items:center}
.chip{padding:4px 12px;border-radius:999px;font-weight:700;font-size:15px;border:1px solid rgba(0,0,0,.12)}
.chip.fail{background:#cf222e;color:#fff} .chip.ok{background:#2da44e;color:#fff}
.chip.flaky{background:#bc4c00;color:#fff} .chip.calm{background:#fff;color:#57606a}
.chip.none{background:#fff;color:#57606a;font-weight:400;font-size:13px}
.meta,.muted{color:#57606a;font-size:13px;font-weight:400}
main{padding:16px 24px;display:flex;flex-direction:column;gap:16px}
.card{background:#fff;border:1px solid #d0d7de;border-radius:8px;padding:14px 16px}
.tag{display:inline-block;padding:1px 7px;border-radius:4px;font-size:12px;font-weight:700;vertical-align:2px}
.tag.emulated{background:#6f42c1;color:#fff}
.tag.flaky{background:#bc4c00;color:#fff}
table{border-collapse:collapse}
table.list{width:100%}
table.list th,table.list td,table.presets th,table.presets td{padding:5px 10px;border-bottom:1px solid #eaeef2;text-align:left;vertical-align:top}
table.list thead th,table.presets thead th{font-size:12px;color:#57606a;font-weight:600}
table.list.fail tbody tr{background:#fff5f5} table.list.flaky tbody tr{background:#fff8f0}
.cellid{display:block;font-family:"DejaVu Sans Mono",monospace;font-size:11px;color:#57606a}
.detail{font-family:"DejaVu Sans Mono",monospace;font-size:11px;color:#57606a;max-width:520px;word-break:break-word}
.none-msg{color:#57606a;margin:2px 0 4px}
.dot{display:inline-block;width:14px;height:14px;border-radius:3px;margin-right:2px;vertical-align:-2px;border:1px dashed #8c959f}
.strip{white-space:nowrap}
.sq{display:inline-block;width:18px;height:18px;line-height:18px;border-radius:3px;margin-right:2px;text-align:center;font-size:11px;font-weight:700;vertical-align:middle}
.o-absent{border:1px dashed #afb8c1}
.ratebox{white-space:nowrap}
.rate{display:inline-block;width:60px;height:8px;background:#eaeef2;border-radius:4px;overflow:hidden;vertical-align:middle;margin-right:6px}
.rate span{display:block;height:100%}
.r-good{background:#2da44e} .r-fair{background:#e3a008} .r-bad{background:#cf222e}
table.grid th,table.grid td{padding:2px 3px;text-align:center}
table.grid thead th{font-size:11px;font-weight:600;color:#57606a;vertical-align:bottom;line-height:1.2}
table.grid thead th.run{min-width:38px;background:#f6f8fa}
table.grid thead th.run .emu{display:block;color:#6f42c1;font-weight:700}
table.grid tbody th{text-align:left;font-weight:400;white-space:nowrap;padding-right:12px}
table.grid tr.rowhead th{padding-top:10px;font-weight:700;color:#1f2328;font-size:13px;border-bottom:1px solid #d0d7de}
table.grid td.rate-cell{text-align:left;white-space:nowrap;font-size:12px;padding-right:10px}
table.grid tbody tr.is-failing th{color:#cf222e;font-weight:700}
table.grid tbody tr.is-flaky th{color:#bc4c00;font-weight:700}
table.grid .sq{width:30px}
${outcome}
${status}
footer{padding:6px 24px 22px;color:#57606a;font-size:12px}
footer .legend{display:flex;flex-wrap:wrap;gap:12px;margin-bottom:6px}
`;
}
