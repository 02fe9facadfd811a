// Overview: the broker's version, uptime, listeners and data directory, and charts of its metrics over time.
import { useCallback, useState } from 'preact/hooks';
import { html, useApi, useLiveEvent, ErrorNote, formatBytes, formatDuration } from './ui.js';

/** Per-second rates between successive samples of a total. */
function rates(samples, field) {
  const out = [];
  for (let i = 1; i < samples.length; i++) {
    const dt = (samples[i].time - samples[i - 1].time) / 1000;
    out.push({ time: samples[i].time, value: dt > 0 ? Math.max(0, samples[i][field] - samples[i - 1][field]) / dt : 0 });
  }
  return out;
}

/** A small line chart; its label and last value are text too, for screen readers. */
export function Chart({ title, points, format }) {
  const width = 320;
  const height = 80;
  const max = Math.max(1, ...points.map((p) => p.value));
  const xs = points.length < 2 ? [] : points.map((p, i) => [(i / (points.length - 1)) * width, height - (p.value / max) * (height - 4) - 2]);
  const last = points.length === 0 ? undefined : points[points.length - 1].value;
  return html`<figure class="chart">
    <figcaption>${title}: <strong>${last === undefined ? 'no samples yet' : format(last)}</strong></figcaption>
    <svg viewBox=${`0 0 ${width} ${height}`} role="img" aria-label=${`${title}, highest ${format(max)}, last ${last === undefined ? 'none' : format(last)}`}>
      <line x1="0" y1=${height - 1} x2=${width} y2=${height - 1} class="axis" />
      ${xs.length > 0 && html`<polyline points=${xs.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(' ')} />`}
    </svg>
  </figure>`;
}

export function Overview() {
  const [data, error] = useApi('/api/overview');
  const [extra, setExtra] = useState([]);
  useLiveEvent(
    'sample',
    useCallback((sample) => setExtra((e) => [...e.slice(-720), sample]), []),
  );
  if (data === undefined)
    return html`<h1>Overview</h1>
      <${ErrorNote} error=${error} />`;
  const samples = [...data.samples, ...extra.filter((s) => s.time > (data.samples.at(-1)?.time ?? 0))];
  const perSecond = (n) => `${n.toFixed(n < 10 ? 1 : 0)}/s`;
  const bytesPerSecond = (n) => `${formatBytes(Math.round(n))}/s`;
  return html`<h1>Overview</h1>
    <${ErrorNote} error=${error} />
    <dl class="facts">
      <dt>Version</dt>
      <dd>brook ${data.version}</dd>
      <dt>Uptime</dt>
      <dd>${formatDuration(data.uptimeMs)}</dd>
      <dt>Cluster id</dt>
      <dd><code>${data.clusterId}</code></dd>
      <dt>Data directory</dt>
      <dd><code>${data.dataDir}</code></dd>
      <dt>Topics</dt>
      <dd>${data.topics} (${data.partitions} partitions)</dd>
      <dt>Consumer groups</dt>
      <dd>${data.groups}</dd>
    </dl>
    <h2>Listeners</h2>
    <table>
      <thead>
        <tr>
          <th scope="col">Listener</th>
          <th scope="col">Address</th>
          <th scope="col">Security</th>
        </tr>
      </thead>
      <tbody>
        ${data.listeners.map(
          (l) =>
            html`<tr>
              <td>${l.name}</td>
              <td><code>${l.address}</code></td>
              <td>${l.security}</td>
            </tr>`,
        )}
      </tbody>
    </table>
    <h2>Metrics</h2>
    <p class="hint">Sampled every 5 seconds while the broker runs; the last hour is kept.</p>
    <div class="charts">
      <${Chart} title="Requests" points=${rates(samples, 'requests')} format=${perSecond} />
      <${Chart} title="Bytes produced" points=${rates(samples, 'bytesIn')} format=${bytesPerSecond} />
      <${Chart} title="Bytes fetched" points=${rates(samples, 'bytesOut')} format=${bytesPerSecond} />
      <${Chart} title="Duplicates caught" points=${samples.map((s) => ({ time: s.time, value: s.duplicates }))} format=${(n) => `${n} in all`} />
      <${Chart} title="Open connections" points=${samples.map((s) => ({ time: s.time, value: s.connections }))} format=${(n) => String(n)} />
    </div>`;
}
