/* The index page's charts (Chart.js with chartjs-chart-matrix, vendored in static/vendor). */
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("report-data").textContent);
  Chart.defaults.font.family = "system-ui, sans-serif";
  Chart.defaults.animation = false;

  // Elo with its interval: a floating bar from low to high, and the estimate as a point on it.
  const rows = data.ranking;
  const eloCanvas = document.getElementById("elo-chart");
  if (eloCanvas && rows.length) {
    new Chart(eloCanvas, {
      type: "bar",
      data: {
        labels: rows.map((r) => r.bot),
        datasets: [
          {
            type: "line",
            label: "Elo",
            data: rows.map((r) => r.elo),
            showLine: false,
            pointRadius: 6,
            pointStyle: "rectRot",
            backgroundColor: "#1f4e99",
            borderColor: "#1f4e99",
            indexAxis: "y",
          },
          {
            label: "interval",
            data: rows.map((r) => (r.plus_minus === null ? [r.elo, r.elo] : [r.elo - r.plus_minus, r.elo + r.plus_minus])),
            backgroundColor: "rgba(31, 78, 153, 0.25)",
            borderColor: "#1f4e99",
            borderWidth: 1,
            barThickness: 10,
            indexAxis: "y",
          },
        ],
      },
      options: {
        indexAxis: "y",
        maintainAspectRatio: false,
        scales: { x: { title: { display: true, text: "Elo" }, grace: "5%" }, y: { stacked: true } },
        plugins: {
          legend: { display: false },
          tooltip: {
            callbacks: {
              label: (ctx) => {
                const r = rows[ctx.dataIndex];
                const pm = r.plus_minus === null ? "" : ` ± ${r.plus_minus.toFixed(0)}`;
                return `${r.bot}: ${r.elo.toFixed(0)}${pm}`;
              },
            },
          },
        },
      },
    });
  }

  // Each bot's Elo over the games played.
  const history = data.history;
  const historyCanvas = document.getElementById("history-chart");
  if (historyCanvas && history.games.length) {
    const palette = ["#1f4e99", "#c0392b", "#27ae60", "#8e44ad", "#d68910", "#17a589", "#7f8c8d", "#2c3e50"];
    new Chart(historyCanvas, {
      type: "line",
      data: {
        datasets: Object.entries(history.elo).map(([bot, elo], i) => ({
          label: bot,
          data: history.games.map((n, k) => ({ x: n, y: elo[k] })),
          borderColor: palette[i % palette.length],
          backgroundColor: palette[i % palette.length],
          pointRadius: history.games.length > 40 ? 0 : 2,
          borderWidth: 2,
          spanGaps: false,
        })),
      },
      options: {
        maintainAspectRatio: false,
        parsing: true,
        scales: {
          x: { type: "linear", title: { display: true, text: "games played" }, min: 0, max: history.games.at(-1) },
          y: { title: { display: true, text: "Elo" } },
        },
        plugins: { legend: { position: "bottom" } },
      },
    });
  }

  // The crosstable as a heatmap: score % of the row's bot against the column's.
  const order = data.crosstable.bots;
  const cells = data.crosstable.cells;
  const points = [];
  for (const a of order) {
    for (const b of order) {
      const cell = (cells[a] || {})[b];
      if (a !== b && cell && cell[1] > 0) points.push({ x: b, y: a, v: (100 * cell[0]) / cell[1], n: cell[1] });
    }
  }
  const crossCanvas = document.getElementById("cross-chart");
  if (crossCanvas && points.length) {
    const color = (v) => `hsl(${Math.round(v * 1.2)}, 65%, 60%)`;
    new Chart(crossCanvas, {
      type: "matrix",
      data: {
        datasets: [
          {
            label: "score %",
            data: points,
            backgroundColor: (ctx) => color(ctx.raw ? ctx.raw.v : 50),
            borderColor: "#fff",
            borderWidth: 1,
            width: ({ chart }) => (chart.chartArea || {}).width / order.length - 2,
            height: ({ chart }) => (chart.chartArea || {}).height / order.length - 2,
          },
        ],
      },
      options: {
        maintainAspectRatio: false,
        scales: {
          x: { type: "category", labels: order, offset: true, grid: { display: false }, position: "top" },
          y: { type: "category", labels: order, offset: true, reverse: true, grid: { display: false } },
        },
        plugins: {
          legend: { display: false },
          tooltip: {
            callbacks: {
              title: () => "",
              label: (ctx) => `${ctx.raw.y} vs ${ctx.raw.x}: ${ctx.raw.v.toFixed(1)} % of ${ctx.raw.n} games`,
            },
          },
        },
      },
      plugins: [
        {
          id: "cellLabels",
          afterDatasetsDraw(chart) {
            const g = chart.ctx;
            const meta = chart.getDatasetMeta(0);
            g.save();
            g.textAlign = "center";
            g.textBaseline = "middle";
            g.fillStyle = "#111";
            meta.data.forEach((el, i) => {
              const p = points[i];
              const c = el.getCenterPoint();
              g.font = "bold 12px system-ui, sans-serif";
              g.fillText(`${p.v.toFixed(1)}%`, c.x, c.y - 7);
              g.font = "11px system-ui, sans-serif";
              g.fillText(`${p.n} games`, c.x, c.y + 8);
            });
            g.restore();
          },
        },
      ],
    });
  }

  // Thinking time per decision: the mean and the 99th percentile.
  const stats = data.stats;
  const timeCanvas = document.getElementById("time-chart");
  if (timeCanvas && stats.length) {
    new Chart(timeCanvas, {
      type: "bar",
      data: {
        labels: stats.map((s) => s.bot),
        datasets: [
          { label: "mean ms per decision", data: stats.map((s) => s.msPerDecision), backgroundColor: "#7a9cc6" },
          { label: "p99 ms", data: stats.map((s) => s.p99Ms), backgroundColor: "#c68a7a" },
        ],
      },
      options: {
        indexAxis: "y",
        maintainAspectRatio: false,
        scales: { x: { title: { display: true, text: "thinking ms per decision" } } },
        plugins: { legend: { display: true, position: "bottom" } },
      },
    });
  }
  document.body.dataset.ready = "1";
})();
