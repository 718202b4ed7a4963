// Runs the workloads of workloads.json in the JavaScript Molang peers: bridge's `molang`
// (2.0.1) and MolangJS (`molangjs` 1.7.1), both pinned exactly in package.json/package-lock.json.
//
//   node peers.mjs [--peer molang|molangjs|all] [--iterations N] [--json]
//
// With --peer all (the default) each peer runs in its own long-lived Node process (this script
// re-spawned with --peer X), so one library's JIT warm-up and garbage cannot disturb the other.
// Per peer and workload:
//   cached:   the library's own parse cache on (bridge `useCache: true`, MolangJS
//             `cache_enabled = true`): the string is parsed once, then every call evaluates.
//             N/5 warm-up calls, then 3 rounds of N timed calls; the median round is reported.
//   uncached: cache off, so every call parses and evaluates (N/20 calls per round).
// One line per peer and workload; --json prints one JSON object per line instead.

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
const { workloads } = JSON.parse(readFileSync(join(here, 'workloads.json'), 'utf8'));

function arg(name, fallback) {
	const i = process.argv.indexOf(name);
	return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1] : fallback;
}
const peer = arg('--peer', 'all');
const iterations = Number(arg('--iterations', '200000'));
const json = process.argv.includes('--json');
const only = arg('--workload', null);

if (peer === 'all') {
	for (const p of ['molang', 'molangjs']) {
		const args = [fileURLToPath(import.meta.url), '--peer', p, '--iterations', String(iterations)];
		if (json) args.push('--json');
		if (only) args.push('--workload', only);
		const r = spawnSync(process.execPath, args, { stdio: 'inherit' });
		if (r.status !== 0) process.exit(r.status ?? 1);
	}
	process.exit(0);
}

const versionOf = (pkg) => JSON.parse(readFileSync(join(here, 'node_modules', pkg, 'package.json'), 'utf8')).version;

// ---------------------------------------------------------------------------------------------
// One adapter per library: make(workload, cached) returns { run(): number, result(): number }.
// Inputs are the same numbers as in benches/backends.rs. Queries with arguments are functions.
// ---------------------------------------------------------------------------------------------

async function bridgeAdapter() {
	const { Molang } = await import('molang');
	return {
		name: `molang@${versionOf('molang')}`,
		make(w, cached) {
			const query = { ...w.queries };
			for (const [name, values] of Object.entries(w.query_calls)) query[name] = (i) => values[i];
			const env = { query, variable: { ...w.variables }, temp: {}, context: {} };
			const m = new Molang(env, { useCache: cached });
			const src = w.expr;
			const resultName = w.result ? w.result.split('.')[1] : null;
			return {
				run: () => m.execute(src),
				// bridge writes assignments into the environment it was given (flattened copy).
				result: () => (resultName ? m.execute(`variable.${resultName}`) : m.execute(src)),
			};
		},
	};
}

// molangjs 1.7.1 declares "type": "module" but its "main" is the CommonJS build, which Node
// then refuses to load; its ES module build is imported by path instead.
async function molangjsAdapter() {
	const { default: MolangJS } = await import('molangjs/dist/molang.esm.js');
	return {
		name: `molangjs@${versionOf('molangjs')}`,
		make(w, cached) {
			const p = new MolangJS();
			p.cache_enabled = cached;
			for (const [name, value] of Object.entries(w.queries)) p.global_variables[`query.${name}`] = value;
			for (const [name, values] of Object.entries(w.query_calls)) p.global_variables[`query.${name}`] = (i) => values[i];
			for (const [name, value] of Object.entries(w.variables)) p.variables[`variable.${name}`] = value;
			const src = w.expr;
			return {
				run: () => p.parse(src),
				result: () => (w.result ? p.variables[w.result] : p.parse(src)),
			};
		},
	};
}

function median(xs) {
	const s = [...xs].sort((a, b) => a - b);
	return s[Math.floor(s.length / 2)];
}

function time(make, n) {
	const inst = make();
	let sink = 0;
	const warm = Math.max(1, Math.floor(n / 5));
	for (let i = 0; i < warm; i++) sink += Number(inst.run()) || 0;
	const rounds = [];
	for (let r = 0; r < 3; r++) {
		const t0 = process.hrtime.bigint();
		for (let i = 0; i < n; i++) sink += Number(inst.run()) || 0;
		const t1 = process.hrtime.bigint();
		rounds.push(Number(t1 - t0) / n);
	}
	globalThis.__sink = sink;
	return median(rounds);
}

const adapter = peer === 'molang' ? await bridgeAdapter() : peer === 'molangjs' ? await molangjsAdapter() : null;
if (!adapter) {
	console.error(`unknown --peer ${peer} (molang, molangjs or all)`);
	process.exit(2);
}

for (const w of workloads) {
	if (only && w.name !== only) continue;
	// The value after one run from fresh state, for a sanity check against ours (f64 here,
	// f32 in ours: the last digits differ).
	let value;
	try {
		const once = adapter.make(w, true);
		once.run();
		value = Number(once.result());
	} catch (e) {
		const line = { peer: adapter.name, workload: w.name, error: String(e && e.message ? e.message : e) };
		console.log(json ? JSON.stringify(line) : `${adapter.name.padEnd(16)} ${w.name.padEnd(14)} error: ${line.error}`);
		continue;
	}
	const cached = time(() => adapter.make(w, true), iterations);
	const uncached = time(() => adapter.make(w, false), Math.max(1, Math.floor(iterations / 20)));
	const line = { peer: adapter.name, workload: w.name, cached_ns: cached, uncached_ns: uncached, value, iterations };
	if (json) console.log(JSON.stringify(line));
	else
		console.log(
			`${adapter.name.padEnd(16)} ${w.name.padEnd(14)} cached: ${cached.toFixed(1).padStart(9)} ns/eval` +
				`   uncached: ${uncached.toFixed(1).padStart(10)} ns/eval   value: ${value}`
		);
}
