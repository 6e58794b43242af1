/* global document, window, Event */
// The data pages' script (no inline script: the Content-Security-Policy forbids it). Every
// page works without it; it adds the live SMS counter, reading a chosen CSV file into the
// form, and the charts. The counter imports the domain module every send is charged with,
// compiled from the same source (src/domain/sms-counter.ts), so the two cannot disagree.
import { countText } from './domain/sms-counter.js';

function counter() {
  const out = document.getElementById('send-counter');
  const text = document.getElementById('send-text');
  if (!out || !text) return;
  const template = out.getAttribute('data-template') || '';
  const update = () => {
    const c = countText(text.value);
    out.setAttribute('data-characters', String(c.characters));
    out.setAttribute('data-parts', String(c.parts));
    out.setAttribute('data-encoding', c.encoding);
    out.textContent = template
      .replace('1111111', String(c.characters))
      .replace('2222222', String(c.parts))
      .replace('%E', out.getAttribute(`data-label-${c.encoding}`) || c.encoding);
  };
  text.addEventListener('input', update);
  update();
}

function csvFiles() {
  for (const input of document.querySelectorAll('input[type=file][data-csv-into]')) {
    input.addEventListener('change', async () => {
      const target = document.getElementById(input.getAttribute('data-csv-into') || '');
      const file = input.files && input.files[0];
      if (!target || !file) return;
      target.value = await file.text();
      target.dispatchEvent(new Event('input', { bubbles: true }));
    });
  }
}

function chart(element) {
  const spec = JSON.parse(element.getAttribute('data-chart') || '{}');
  const uPlot = window.uPlot;
  if (!uPlot || !Array.isArray(spec.x)) return;
  const width = Math.max(280, Math.min(element.clientWidth || 600, 900));
  const bars = spec.kind === 'outcome';
  const colours = ['#2563eb', '#16a34a', '#dc2626', '#ca8a04'];
  const series = [{}].concat(
    spec.series.map((s, i) => ({
      label: s.label,
      stroke: colours[i % colours.length],
      fill: bars ? colours[(i + 1) % colours.length] : undefined,
      scale: s.scale || 'y',
      paths: bars ? uPlot.paths.bars({ size: [0.6] }) : undefined,
      points: { show: !bars },
    })),
  );
  const axes = [bars ? { values: (_u, ticks) => ticks.map((t) => spec.labels[t] || '') } : {}, { scale: 'y' }];
  if (spec.series.some((s) => s.scale === '%')) axes.push({ scale: '%', side: 1, grid: { show: false } });
  const opts = {
    width,
    height: 260,
    series,
    axes,
    scales: { x: { time: !bars, range: bars ? [-0.5, spec.x.length - 0.5] : undefined }, '%': { range: [0, 100] } },
  };
  const data = [spec.x].concat(spec.series.map((s) => s.values));
  new uPlot(opts, data, element);
  element.setAttribute('data-drawn', String(spec.x.length));
}

counter();
csvFiles();
for (const element of document.querySelectorAll('[data-chart]')) chart(element);
