/** Inline stylesheet of matrix.html: no external resources, readable on screen and in print. */

/** Colours per grid status, shared by the legend and the grid. */
export const STATUS_COLOURS = {
  pass: { bg: '#2da44e', fg: '#ffffff' },
  fail: { bg: '#cf222e', fg: '#ffffff' },
  'expected-failure': { bg: '#e3a008', fg: '#1f2328' },
  skipped: { bg: '#afb8c1', fg: '#1f2328' },
} as const;

/** The page's stylesheet. */
export function matrixCss(): string {
  const status = Object.entries(STATUS_COLOURS)
    .map(([s, c]) => `.st-${s}{background:${c.bg};color:${c.fg}}`)
    .join('\n');
  return `
*{box-sizing:border-box}
body{margin:0;font:14px/1.4 "DejaVu Sans","Liberation Sans",system-ui,sans-serif;color:#1f2328;background:#f6f8fa}
.banner{padding:14px 24px;font-size:20px;font-weight:700;letter-spacing:.02em;text-align:center}
.banner-emulated{background:repeating-linear-gradient(135deg,#6f42c1 0 24px,#5a32a3 24px 48px);color:#fff;border-bottom:4px solid #3b1f70}
.banner-emulated small{display:block;font-size:13px;font-weight:400;opacity:.9}
.banner-interrupted{background:#1f2328;color:#fff}
header{padding:16px 24px 8px;background:#fff;border-bottom:1px solid #d0d7de}
h1{margin:0 0 8px;font-size:22px}
h1 .status{display:inline-block;min-width:1.4em;text-align:center;border-radius:6px;margin-right:8px}
h2{margin:0 0 8px;font-size:17px}
.totals{display:flex;flex-wrap:wrap;gap:8px;margin:8px 0}
.chip{padding:3px 10px;border-radius:999px;font-weight:600;border:1px solid rgba(0,0,0,.12)}
.chip.none{background:#fff;color:#57606a;font-weight:400}
.run{display:flex;flex-wrap:wrap;gap:4px 20px;margin:6px 0 4px;color:#57606a;font-size:13px}
.run b{color:#1f2328;font-weight:600}
.legend{display:flex;flex-wrap:wrap;gap:14px;padding:10px 24px;font-size:13px;color:#57606a}
.legend .sw{display:inline-block;width:16px;height:16px;border-radius:3px;vertical-align:-3px;margin-right:5px}
main{display:flex;flex-wrap:wrap;gap:18px;padding:4px 24px 16px;align-items:flex-start}
h2.view{flex-basis:100%;margin:12px 0 0;font-size:18px}
h2.view small{font-weight:normal;color:#555;font-size:13px;margin-left:8px}
.card{background:#fff;border:1px solid #d0d7de;border-radius:8px;padding:12px 14px}
table.grid{border-collapse:separate;border-spacing:4px}
table.grid th{font-weight:600;font-size:13px;padding:4px 8px;white-space:nowrap}
table.grid thead th{vertical-align:bottom;text-align:center;max-width:110px;white-space:normal}
table.grid tbody th{text-align:right}
table.grid th.corner{color:#57606a;font-weight:400;font-size:12px;vertical-align:bottom}
table.grid th.corner .to{text-align:right}
table.grid th.corner .from{text-align:left}
td.pos{width:104px;min-width:104px;height:60px;border-radius:6px;text-align:center;vertical-align:middle;padding:4px}
td.pos .big{font-size:20px;font-weight:700;line-height:1.1}
td.pos .big small{font-size:13px;font-weight:600;opacity:.85}
td.pos .mix{font-size:11px;font-weight:600;line-height:1.3}
td.pos details{font-size:11px;text-align:left}
td.pos summary{cursor:pointer;text-align:center;opacity:.7;font-size:10px}
td.pos ul{margin:4px 0 0;padding-left:14px;max-width:320px}
td.empty{background:#f6f8fa;color:#afb8c1;border:1px dashed #d0d7de}
td.heat{color:#1f2328}
td.heat .big{font-size:16px}
${status}
section.problems{padding:0 24px 24px}
section.problems h2{margin-top:14px}
section.problems ul{margin:0;padding-left:20px}
section.problems li{margin:4px 0}
.cellid{font-family:"DejaVu Sans Mono",monospace;font-size:12px;color:#57606a}
pre.detail{margin:2px 0 6px;padding:6px 8px;background:#f6f8fa;border:1px solid #d0d7de;border-radius:4px;white-space:pre-wrap;font-size:12px;max-height:160px;overflow:auto}
.tag{display:inline-block;padding:0 6px;border-radius:4px;font-size:12px;font-weight:600}
footer{padding:8px 24px 20px;color:#57606a;font-size:12px}
`;
}
