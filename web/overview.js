// Overview: the broker's version, uptime, listeners and data directory, a simulated cluster's nodes, and charts of its metrics over time.
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

/** The time of day of a sample, as ISO 8601 writes it (UTC). */
const timeOfDay = (ms) => new Date(ms).toISOString().slice(11, 19);

/**
 * A small line chart with its axes: the value axis from 0 to the highest value, in the chart's
 * unit, and the time axis from the first sample kept to the last, in UTC. Its label and last
 * value are text too, for screen readers.
 */
export function Chart({ title, unit, points, format }) {
  const width = 320;
  const height = 104;
  const left = 56;
  const bottom = 84;
  const max = Math.max(1, ...points.map((p) => p.value));
  const x = (i) => left + (points.length < 2 ? 0 : (i / (points.length - 1)) * (width - left - 4));
  const y = (value) => bottom - (value / max) * (bottom - 8);
  const last = points.length === 0 ? undefined : points[points.length - 1].value;
  return html`<figure class="chart">
    <figcaption>${title} (${unit}): <strong>${last === undefined ? 'no samples yet' : format(last)}</strong></figcaption>
    <svg viewBox=${`0 0 ${width} ${height}`} role="img" aria-label=${`${title}, highest ${format(max)}, last ${last === undefined ? 'none' : format(last)}`}>
      <line x1=${left} y1="4" x2=${left} y2=${bottom} class="axis" />
      <line x1=${left} y1=${bottom} x2=${width} y2=${bottom} class="axis" />
      <g class="ticks" aria-hidden="true">
        <text x=${left - 4} y="12" text-anchor="end">${format(max)}</text>
        <text x=${left - 4} y=${bottom} text-anchor="end">${format(0)}</text>
        ${points.length > 0 && html`<text x=${left} y=${height - 4} text-anchor="start">${timeOfDay(points[0].time)}</text>`}
        ${points.length > 0 && html`<text x=${width} y=${height - 4} text-anchor="end">${timeOfDay(points[points.length - 1].time)} UTC</text>`}
      </g>
      ${points.length > 1 && html`<polyline points=${points.map((p, i) => `${x(i).toFixed(1)},${y(p.value).toFixed(1)}`).join(' ')} />`}
      ${points.length === 1 && html`<circle cx=${x(0)} cy=${y(points[0].value)} r="2" />`}
    </svg>
  </figure>`;
}

/** A simulated cluster's nodes (`nodes`): where each listens, whether it is live, and how many partitions it leads. */
function Nodes({ nodes }) {
  if (nodes === undefined) return null;
  return html`<h2 id="nodes">Nodes</h2>
    <table aria-labelledby="nodes">
      <thead>
        <tr>
          <th scope="col" class="num">Node</th>
          <th scope="col">Address</th>
          <th scope="col">State</th>
          <th scope="col" class="num">Leads</th>
        </tr>
      </thead>
      <tbody>
        ${nodes.map(
          (n) =>
            html`<tr data-node=${n.nodeId}>
              <td class="num">${n.nodeId}</td>
              <td><code>${n.address}</code></td>
              <td>${n.state === 'live' ? 'live' : html`<strong class="bad">${n.state}</strong>`}</td>
              <td class="num">${n.leads} partition${n.leads === 1 ? '' : 's'}</td>
            </tr>`,
        )}
      </tbody>
    </table>`;
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
    <${Nodes} nodes=${data.nodes} />
    <h2>Metrics</h2>
    <p class="hint">Sampled every 5 seconds while the broker runs; the last hour is kept. Times are UTC.</p>
    <div class="charts">
      <${Chart} title="Requests" unit="per second" points=${rates(samples, 'requests')} format=${perSecond} />
      <${Chart} title="Bytes produced" unit="bytes per second" points=${rates(samples, 'bytesIn')} format=${bytesPerSecond} />
      <${Chart} title="Bytes fetched" unit="bytes per second" points=${rates(samples, 'bytesOut')} format=${bytesPerSecond} />
      <${Chart} title="Duplicates caught" unit="since the start" points=${samples.map((s) => ({ time: s.time, value: s.duplicates }))} format=${String} />
      <${Chart} title="Open connections" unit="connections" points=${samples.map((s) => ({ time: s.time, value: s.connections }))} format=${String} />
    </div>`;
}
