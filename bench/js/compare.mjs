// Ours next to the JavaScript peers, in one run, on the workloads of workloads.json.
//
//   node bench/js/compare.mjs [--no-build] [--repeat R] [--iterations N] [--peer-iterations M] [--json]
//
// 1. builds the CLI (`cargo build --release -p molang --bin molang`) unless --no-build;
// 2. per workload runs `target/release/molang bench --expr EXPR --backend both --iterations N
//    --set q.NAME=V ... --set v.NAME=V ...` (interpreter and JIT; unset queries read 0);
// 3. runs bench/js/peers.mjs (one long-lived Node process per peer; cached and uncached);
// 4. repeats 2-3 R times (default 3) and prints one table of medians: ns/eval and how many
//    times faster ours is than each peer.
//
// The CLI's host answers a query with arguments with the same value whatever the argument, so
// for `hand_bob` both `query.position_delta(0)` and `(2)` read the value given for argument 0
// there (the peers get the real per-argument table; the cost per call is the same).
// Needs `npm ci` (or `npm install`) in bench/js first.

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import os from 'node:os';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const { workloads } = JSON.parse(readFileSync(join(here, 'workloads.json'), 'utf8'));

function arg(name, fallback) {
	const i = process.argv.indexOf(name);
	return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1] : fallback;
}
const ourIterations = arg('--iterations', '1000000');
const peerIterations = arg('--peer-iterations', '200000');
const asJson = process.argv.includes('--json');

function run(cmd, args, opts = {}) {
	const r = spawnSync(cmd, args, { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20, ...opts });
	if (r.status !== 0) {
		process.stderr.write(r.stderr ?? '');
		throw new Error(`${cmd} ${args.slice(0, 3).join(' ')} ... exited with ${r.status}`);
	}
	return r;
}

if (!process.argv.includes('--no-build')) {
	run('cargo', ['build', '--release', '-q', '-p', 'molang', '--bin', 'molang'], { stdio: ['ignore', 'inherit', 'inherit'] });
}
const cli = join(root, 'target', 'release', 'molang');

const cpu = (() => {
	try {
		const m = readFileSync('/proc/cpuinfo', 'utf8').match(/model name\s*:\s*(.*)/);
		return m ? m[1] : os.cpus()[0]?.model;
	} catch {
		return os.cpus()[0]?.model;
	}
})();
console.error(`machine: ${os.cpus().length} cpus, ${cpu}, load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
console.error(`node ${process.version}; ours: ${cli} (${ourIterations} iterations); peers: ${peerIterations} iterations`);

// One round = ours on every workload, then each peer on every workload. --repeat R rounds;
// every cell of the table is the median over the rounds (the machine may be busy).
function measureOurs() {
	const ours = {};
	for (const w of workloads) {
		const sets = [];
		for (const [n, v] of Object.entries(w.queries)) sets.push('--set', `q.${n}=${v}`);
		for (const [n, t] of Object.entries(w.query_calls)) sets.push('--set', `q.${n}=${t[0]}`);
		for (const [n, v] of Object.entries(w.variables)) sets.push('--set', `v.${n}=${v}`);
		const r = run(cli, ['bench', '--expr', w.expr, '--backend', 'both', '--iterations', ourIterations, ...sets]);
		const num = (re) => {
			const m = r.stdout.match(re);
			return m ? Number(m[1]) : null;
		};
		ours[w.name] = { interp: num(/^interp: ([\d.]+) ns\/eval/m), jit: num(/^jit: ([\d.]+) ns\/eval/m) };
		const jitNote = r.stdout.match(/^jit: unavailable \((.*)\)/m);
		if (jitNote) ours[w.name].jit_unavailable = jitNote[1];
		console.error(`ours   ${w.name.padEnd(14)} ${r.stdout.trim().replace(/\n/g, '   ')}`);
	}
	return ours;
}

function measurePeers() {
	const peers = {};
	const pr = run(process.execPath, [join(here, 'peers.mjs'), '--peer', 'all', '--json', '--iterations', peerIterations]);
	for (const line of pr.stdout.split('\n')) {
		if (!line.trim()) continue;
		const o = JSON.parse(line);
		(peers[o.peer] ??= {})[o.workload] = o;
		console.error(
			`${o.peer.padEnd(16)} ${o.workload.padEnd(14)} ` +
				(o.error ? `error: ${o.error}` : `cached ${o.cached_ns.toFixed(1)} ns/eval, uncached ${o.uncached_ns.toFixed(1)} ns/eval`)
		);
	}
	return peers;
}

const repeat = Number(arg('--repeat', '3'));
const rounds = [];
for (let i = 0; i < repeat; i++) {
	console.error(`round ${i + 1}/${repeat} (load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')})`);
	rounds.push({ ours: measureOurs(), peers: measurePeers() });
}

const median = (xs) => {
	const s = xs.filter((x) => x != null).sort((a, b) => a - b);
	if (s.length === 0) return null;
	return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const ours = {};
const peers = {};
for (const w of workloads) {
	ours[w.name] = {
		interp: median(rounds.map((r) => r.ours[w.name].interp)),
		jit: median(rounds.map((r) => r.ours[w.name].jit)),
		jit_unavailable: rounds[0].ours[w.name].jit_unavailable,
	};
	for (const p of Object.keys(rounds[0].peers)) {
		const xs = rounds.map((r) => r.peers[p]?.[w.name]).filter((x) => x && !x.error);
		(peers[p] ??= {})[w.name] = xs.length
			? { cached_ns: median(xs.map((x) => x.cached_ns)), uncached_ns: median(xs.map((x) => x.uncached_ns)) }
			: { error: rounds[0].peers[p]?.[w.name]?.error ?? 'missing' };
	}
}
console.error(`done (load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')})`);

if (asJson) {
	console.log(JSON.stringify({ ours, peers, rounds }));
	process.exit(0);
}

const f = (x) => (x == null ? '—' : x.toFixed(1));
const ratio = (a, b) => (a == null || b == null ? '—' : (a / b).toFixed(1) + '×');
const names = Object.keys(peers);
const head = ['workload', 'ours interp', 'ours JIT'];
for (const p of names) head.push(`${p} cached`, `${p} uncached`, `${p}/interp`, `${p}/JIT`);
console.log('| ' + head.join(' | ') + ' |');
console.log('|' + head.map(() => '---').join('|') + '|');
for (const w of workloads) {
	const o = ours[w.name];
	const row = [w.name, f(o.interp), o.jit == null ? 'n/a' : f(o.jit)];
	for (const p of names) {
		const x = peers[p][w.name];
		if (!x || x.error) {
			row.push('error', 'error', '—', '—');
			continue;
		}
		row.push(f(x.cached_ns), f(x.uncached_ns), ratio(x.cached_ns, o.interp), ratio(x.cached_ns, o.jit));
	}
	console.log('| ' + row.join(' | ') + ' |');
}
console.log(`\nns/eval, median of ${repeat} rounds; "<peer>/interp" and "<peer>/JIT" = the peer\'s cached time divided by ours (how many times faster ours is).`);
