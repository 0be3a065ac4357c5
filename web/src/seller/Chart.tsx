// One time series drawn with uPlot (docs/decisions.md: the chart library): a canvas line chart sized to its box,
// with its numbers as a table beside it for screen readers, keyboards and copying. The canvas is an image
// described by the figure's caption; the table carries the data.
import { useEffect, useRef } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";

export interface Series {
  /** Period starts, in seconds since the epoch. */
  times: number[];
  values: number[];
  /** The period before's values, drawn dashed under the same starts (the n-th period beside the n-th). */
  previous?: Array<number | null>;
}

function themeColor(name: string, fallback: string): string {
  const v = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return v || fallback;
}

/** Whole-number steps (1, 2, 5, 10, …): counts and minor units have no fractions to label. */
const WHOLE_STEPS = Array.from({ length: 12 }, (_, i) => [1, 2, 5].map((m) => m * 10 ** i)).flat();

export function LineChart({ series, format, label, whole }: { series: Series; format: (v: number) => string; label: string; whole: boolean }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const ink = themeColor("--text", "#1b1f24");
    const accent = themeColor("--accent", "#0b57d0");
    const grid = themeColor("--border", "#c9d1d9");
    const muted = themeColor("--muted", "#57606a");
    const axis = { stroke: ink, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 }, font: "11px system-ui, sans-serif" };
    const opts: uPlot.Options = {
      width: Math.max(200, el.clientWidth),
      height: 160,
      legend: { show: false },
      cursor: { show: true, drag: { x: false, y: false } },
      scales: { x: { time: true }, y: { range: (_u, min, max) => [Math.min(0, min), max > 0 ? max * 1.1 : whole ? 10 : 1] } },
      axes: [axis, { ...axis, size: 64, values: (_u, ticks) => ticks.map(format), ...(whole ? { incrs: WHOLE_STEPS } : {}) }],
      series: [
        {},
        { label, stroke: accent, width: 2, fill: `${accent}22`, points: { show: series.times.length < 40 } },
        ...(series.previous ? [{ label: `${label}, the period before`, stroke: muted, width: 1.5, dash: [5, 4], points: { show: false } }] : []),
      ],
    };
    const data: uPlot.AlignedData = series.previous ? [series.times, series.values, series.previous] : [series.times, series.values];
    const plot = new uPlot(opts, data, el);
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(200, el.clientWidth), height: 160 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [series, format, label, whole]);
  return <div className="chart" ref={box} aria-hidden="true" />;
}
