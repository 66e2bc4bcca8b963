// gputopo's HTML report: draws every plot from the data block with Chart.js, then checks that
// each canvas holds a drawing (body data-plots and data-plots-drawn, read by the browser test).
(function () {
  'use strict';
  const colors = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', '#e377c2',
                  '#17becf'];
  const markColor = '#444';

  function bytes(v) {
    const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    let u = 0;
    while (Math.abs(v) >= 1024 && u < units.length - 1) { v /= 1024; ++u; }
    return (Math.round(v * 100) / 100) + ' ' + units[u];
  }

  function range(series, index) {
    let lo = Infinity, hi = -Infinity;
    for (const s of series) for (const p of s.xy) { lo = Math.min(lo, p[index]); hi = Math.max(hi, p[index]); }
    return [lo, hi];
  }

  function line(label, points, dash, width) {
    return { type: 'line', label: label, data: points, showLine: true, fill: false,
             pointRadius: 0, borderColor: markColor, borderDash: dash, borderWidth: width };
  }

  function markDatasets(plot) {
    const [xlo, xhi] = range(plot.series, 0);
    const [ylo, yhi] = range(plot.series, 1);
    const sets = [];
    for (const m of plot.marks) {
      if (m.axis === 'x') {
        sets.push(line(m.label, [{ x: m.value, y: ylo }, { x: m.value, y: yhi }], [], 2));
        if (m.lo !== m.hi) {
          sets.push(line(m.label + ' (interval)', [{ x: m.lo, y: ylo }, { x: m.lo, y: yhi }], [3, 3], 1));
          sets.push(line(m.label + ' (interval)', [{ x: m.hi, y: ylo }, { x: m.hi, y: yhi }], [3, 3], 1));
        }
      } else {
        sets.push(line(m.label, [{ x: xlo, y: m.value }, { x: xhi, y: m.value }], [8, 4], 1.5));
      }
    }
    return sets;
  }

  // A logarithmic byte axis has its ticks at powers of `base` (of two), at most a dozen.
  function powersOf(base) {
    return function (axis) {
      const lo = Math.floor(Math.log2(axis.min)), hi = Math.ceil(Math.log2(axis.max));
      const each = Math.log2(base);
      const step = Math.max(each, Math.ceil((hi - lo) / 12 / each) * each);
      axis.ticks = [];
      for (let e = Math.floor(lo / each) * each; e <= hi; e += step) axis.ticks.push({ value: Math.pow(2, e) });
    };
  }

  function drawSweep(canvas, plot) {
    const datasets = plot.series.map(function (s, i) {
      const color = colors[Math.floor(i / 2) % colors.length];
      return { label: s.label, data: s.xy.map(p => ({ x: p[0], y: p[1] })),
               pointRadius: s.faint ? 1.5 : 2.5, backgroundColor: s.faint ? color + '55' : color,
               borderColor: s.faint ? color + '55' : color };
    }).concat(markDatasets(plot));
    const tick = plot.xBytes ? (v => bytes(v)) : (v => v);
    const powersOfTwo = powersOf(2);
    return new Chart(canvas, {
      type: 'scatter',
      data: { datasets: datasets },
      options: {
        animation: false, responsive: false,
        scales: {
          x: { type: plot.xLog ? 'logarithmic' : 'linear',
               title: { display: true, text: plot.xLabel }, ticks: { callback: tick },
               afterBuildTicks: plot.xLog ? powersOfTwo : undefined },
          y: { title: { display: true, text: 'cycles per load' } }
        },
        plugins: { title: { display: true, text: plot.probe },
                   legend: { position: 'bottom', labels: { boxWidth: 10 } } }
      }
    });
  }

  function drawBandwidth(canvas, bars) {
    return new Chart(canvas, {
      type: 'bar',
      data: {
        labels: bars.map(b => b.label),
        datasets: [{ label: 'GB/s', data: bars.map(b => b.gbps),
                     backgroundColor: bars.map(b => b.peak ? '#999999' : '#1f77b4') }]
      },
      options: { animation: false, responsive: false, indexAxis: 'y',
                 plugins: { legend: { display: false } },
                 scales: { x: { type: 'logarithmic',
                                title: { display: true, text: 'GB/s (grey: the derived peak)' } } } }
    });
  }

  // Each level a step at its latency, ending at its size (footprints up to it hit there).
  function drawStaircase(canvas, steps) {
    const datasets = steps.map(function (s, i) {
      const from = s.bytes / 16;
      const color = colors[i % colors.length];
      return { label: s.label + ' (' + bytes(s.bytes) + ', ' + Math.round(s.cycles) + ' cycles)',
               data: [{ x: from, y: s.cycles }, { x: s.bytes, y: s.cycles }], showLine: true,
               borderColor: color, backgroundColor: color, borderWidth: 3, pointRadius: 3 };
    });
    return new Chart(canvas, {
      type: 'scatter', data: { datasets: datasets },
      options: { animation: false, responsive: false,
                 scales: { x: { type: 'logarithmic', title: { display: true, text: 'footprint' },
                                ticks: { callback: v => bytes(v) }, afterBuildTicks: powersOf(4) },
                           y: { type: 'logarithmic', title: { display: true, text: 'latency (cycles)' } } },
                 plugins: { legend: { position: 'right', labels: { boxWidth: 10 } } } }
    });
  }

  // Rows the SMs, columns the slices, blue (least cycles) to red (most), with the scale's ends.
  function drawSliceMap(canvas, map) {
    const ctx = canvas.getContext('2d');
    const rows = map.cycles.length, cols = map.slices.length;
    let lo = Infinity, hi = -Infinity;
    for (const row of map.cycles) for (const v of row) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
    const left = 60, top = 10, bottom = 50;
    const w = (canvas.width - left - 10) / cols, h = (canvas.height - top - bottom) / rows;
    for (let r = 0; r < rows; ++r)
      for (let c = 0; c < cols; ++c) {
        const t = hi > lo ? (map.cycles[r][c] - lo) / (hi - lo) : 0;
        ctx.fillStyle = 'hsl(' + Math.round(240 * (1 - t)) + ', 70%, 50%)';
        ctx.fillRect(left + c * w, top + r * h, Math.ceil(w), Math.ceil(h));
      }
    ctx.fillStyle = markColor;
    ctx.font = '11px sans-serif';
    const every = Math.max(1, Math.ceil(12 / h));
    for (let r = 0; r < rows; r += every) ctx.fillText('SM ' + map.sms[r], 4, top + (r + 0.8) * h);
    const y = canvas.height - bottom + 16;
    ctx.fillText('slices ' + map.slices[0] + '-' + map.slices[cols - 1] + ' (columns); ' +
                 Math.round(lo) + ' cycles (blue) to ' + Math.round(hi) + ' (red)', left, y);
  }

  function inked(canvas) {
    const ctx = canvas.getContext('2d');
    const pixels = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
    let n = 0;
    for (let i = 3; i < pixels.length; i += 4) if (pixels[i] !== 0) ++n;
    return n;
  }

  const data = JSON.parse(document.getElementById('gputopo-data').textContent);
  let drawn = 0, total = 0;
  for (const canvas of document.querySelectorAll('canvas[data-plot]')) {
    ++total;
    const which = canvas.dataset.plot;
    if (which === 'bandwidth') drawBandwidth(canvas, data.bandwidth);
    else if (which === 'staircase') drawStaircase(canvas, data.staircase);
    else if (which === 'slices') drawSliceMap(canvas, data.slices);
    else drawSweep(canvas, data.plots[Number(which)]);
    const n = inked(canvas);
    canvas.dataset.inked = n;
    if (n > 1000) ++drawn;
  }
  document.body.dataset.plots = total;
  document.body.dataset.plotsDrawn = drawn;
})();
