// Line charts as a standalone SVG file, for benchmark reports that are read as time series (a soak run):
// a column of panels sharing one x axis, each with its own y axis and one line per series. Plain SVG
// text, so the file renders on GitHub and in any browser without a plotting dependency.

export interface Series {
  readonly name: string;
  /** [x, y] points; NaN y values leave a gap. */
  readonly points: ReadonlyArray<readonly [number, number]>;
}

export interface Panel {
  readonly title: string;
  /** Printed after the y axis labels, e.g. "ops/s" or "MB". */
  readonly unit: string;
  readonly series: readonly Series[];
}

const WIDTH = 900;
const PANEL_HEIGHT = 170;
const MARGIN = { left: 70, right: 150, top: 28, bottom: 26 };
const COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"];

function escapeXml(text: string): string {
  return text.replace(/[<>&"]/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;" })[c]!);
}

/** A readable tick value: up to 3 significant digits, thousands as k, millions as M. */
function tickLabel(v: number): string {
  const abs = Math.abs(v);
  if (abs >= 1e6) return `${+(v / 1e6).toPrecision(3)}M`;
  if (abs >= 1e4) return `${+(v / 1e3).toPrecision(3)}k`;
  return `${+v.toPrecision(3)}`;
}

/** Upper end of the y axis: the largest value rounded up to 1, 2 or 5 times a power of ten. */
function niceMax(max: number): number {
  if (!(max > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 5, 10]) if (step * power >= max) return step * power;
  return 10 * power;
}

/** The whole SVG document: one panel per entry, x labelled `xLabel` (e.g. "minutes"). */
export function lineChartsSvg(title: string, xLabel: string, panels: readonly Panel[]): string {
  const xs = panels.flatMap((p) => p.series.flatMap((s) => s.points.map(([x]) => x)));
  const xMin = Math.min(...xs, 0);
  const xMax = Math.max(...xs, xMin + 1e-9);
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = PANEL_HEIGHT - MARGIN.top - MARGIN.bottom;
  const height = 30 + panels.length * PANEL_HEIGHT + 14;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${WIDTH / 2}" y="18" text-anchor="middle" font-size="14" font-weight="bold">${escapeXml(title)}</text>`,
  ];
  panels.forEach((panel, i) => {
    const top = 30 + i * PANEL_HEIGHT + MARGIN.top;
    const ys = panel.series.flatMap((s) => s.points.map(([, y]) => y)).filter(Number.isFinite);
    const yMax = niceMax(Math.max(...ys, 0));
    const sx = (x: number) => MARGIN.left + ((x - xMin) / (xMax - xMin)) * plotWidth;
    const sy = (y: number) => top + plotHeight - (y / yMax) * plotHeight;
    out.push(
      `<text x="${MARGIN.left}" y="${top - 8}" font-weight="bold">${escapeXml(`${panel.title} (${panel.unit})`)}</text>`,
      `<rect x="${MARGIN.left}" y="${top}" width="${plotWidth}" height="${plotHeight}" fill="none" stroke="#999"/>`,
    );
    for (let t = 0; t <= 4; t++) {
      const v = (yMax * t) / 4;
      const y = sy(v);
      out.push(
        `<line x1="${MARGIN.left}" x2="${MARGIN.left + plotWidth}" y1="${y}" y2="${y}" stroke="#eee"/>`,
        `<text x="${MARGIN.left - 6}" y="${y + 4}" text-anchor="end">${tickLabel(v)}</text>`,
      );
    }
    for (let t = 0; t <= 6; t++) {
      const v = xMin + ((xMax - xMin) * t) / 6;
      out.push(`<text x="${sx(v)}" y="${top + plotHeight + 14}" text-anchor="middle">${tickLabel(v)}</text>`);
    }
    panel.series.forEach((series, k) => {
      const color = COLORS[k % COLORS.length];
      // A NaN point ends the current line segment: gaps show where nothing was measured.
      const segments: string[][] = [[]];
      for (const [x, y] of series.points) {
        if (Number.isFinite(y)) segments.at(-1)!.push(`${sx(x).toFixed(1)},${sy(y).toFixed(1)}`);
        else if (segments.at(-1)!.length > 0) segments.push([]);
      }
      for (const seg of segments) {
        if (seg.length > 0) {
          out.push(`<polyline fill="none" stroke="${color}" stroke-width="1.5" points="${seg.join(" ")}"/>`);
        }
      }
      const ly = top + 12 + k * 14;
      out.push(
        `<line x1="${MARGIN.left + plotWidth + 10}" x2="${MARGIN.left + plotWidth + 26}" y1="${ly - 4}" y2="${ly - 4}" stroke="${color}" stroke-width="2"/>`,
        `<text x="${MARGIN.left + plotWidth + 30}" y="${ly}">${escapeXml(series.name)}</text>`,
      );
    });
  });
  const last = height - 6;
  out.push(
    `<text x="${MARGIN.left + plotWidth / 2}" y="${last}" text-anchor="middle">${escapeXml(xLabel)}</text>`,
  );
  out.push("</svg>");
  return `${out.join("\n")}\n`;
}
