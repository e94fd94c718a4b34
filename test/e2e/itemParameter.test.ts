/**
 * Parity of the trivial `={{ $json.a.b }}` reader (itemParameter, shared/jsonPath.ts) with n8n's
 * expression engine: in n8n 2.40.7's own Node and modules, with its ExecuteContext, every case is
 * read both ways (our packed code and n8n's getNodeParameter) on the `legacy` and `vm` engines. The
 * results (or the errors) must be identical, and the reader must have skipped the engine where it
 * may (strings and finite numbers) and only there.
 */
import { N8nInstance } from '../../harness/n8nProcess';
import { runtime } from '../../harness/runtime';
import { installedPackage, runInN8nNode } from './support';

jest.setTimeout(240_000);

/** Run by runInN8nNode (n8n's own Node 24 and modules; `input` is the installed package): each case read both ways. */
const SCRIPT = String.raw`
const util = require('node:util');
const packageDir = input;
const { Workflow, createRunExecutionData } = require(path.join(modules, 'n8n-workflow'));
const { ExecuteContext } = require(path.join(modules, 'n8n-core'));
const { Clearinghouse } = require(path.join(packageDir, 'dist', 'nodes', 'Clearinghouse', 'Clearinghouse.node.js'));
const { itemParameter } = require(path.join(packageDir, 'dist', 'nodes', 'Clearinghouse', 'actions', 'parameters.js'));

// [expression, item json, the reader may skip the engine]
const cases = [
	['={{ $json.s }}', { s: 'text' }, true],
	['={{$json.s}}', { s: '' }, true],
	['={{ $json.s }}', { s: '  padded  ' }, true],
	['={{ $json.s }}', { s: '={{ 1 + 1 }}' }, true],
	['={{ $json.s }}', { s: 'ключ 🔑 "q" \\ \n' }, true],
	['={{ $json.n }}', { n: 0 }, true],
	['={{ $json.n }}', { n: 1.25 }, true],
	['={{ $json.n }}', { n: -3 }, true],
	['={{ $json.n }}', { n: 1e21 }, true],
	['={{ $json.n }}', { n: 0.1 + 0.2 }, true],
	['={{ $json.n }}', { n: Number.MAX_SAFE_INTEGER + 2 }, true],
	['={{ $json.n }}', { n: -0 }, false],
	['={{ $json.n }}', { n: NaN }, false],
	['={{ $json.n }}', { n: Infinity }, false],
	['={{ $json.b }}', { b: true }, false],
	['={{ $json.b }}', { b: false }, false],
	['={{ $json.v }}', { v: null }, false],
	['={{ $json.o }}', { o: { a: 1, b: [2] } }, false],
	['={{ $json.arr }}', { arr: [1, 'a', { b: 2 }] }, false],
	['={{ $json.arr }}', { arr: [] }, false],
	['={{ $json.a.b.c }}', { a: { b: { c: 'deep' } } }, true],
	['={{ $json.a.b.c }}', { a: { b: { c: 7 } } }, true],
	['={{ $json.a.b }}', { a: null }, false],
	['={{ $json.a.b }}', { a: 'str' }, false],
	['={{ $json.a.length }}', { a: 'str' }, false],
	['={{ $json.a.length }}', { a: [1, 2] }, false],
	['={{ $json.a.b }}', { a: [1] }, false],
	['={{ $json.missing }}', {}, false],
	['={{ $json.a.missing }}', { a: {} }, false],
	['={{ $json.__proto__ }}', {}, false],
	['={{ $json.a.__proto__ }}', { a: {} }, false],
	['={{ $json.constructor }}', {}, false],
	['={{ $json.a.constructor.name }}', { a: {} }, false],
	['={{ $json.a.prototype }}', { a: { prototype: 'x' } }, false],
	['={{ $json.toString }}', {}, false],
	['={{ $json.hasOwnProperty }}', { hasOwnProperty: 'own' }, false],
	['={{ $json.valueOf }}', { valueOf: 'own' }, false],
	['={{ $json.a.isPrototypeOf }}', { a: { isPrototypeOf: 'own' } }, false],
	['={{ $json.binding }}', { binding: 'own' }, false],
	['={{ $json.caller }}', { caller: 'own' }, false],
	['={{ $json.a.arguments }}', { a: { arguments: 'own' } }, false],
	['={{ $json.bindings }}', { bindings: 'own' }, true],
	['={{ $json.$id }}', { $id: 'd' }, true],
	['={{ $json._x }}', { _x: 5 }, true],
	['={{ $json.s }} tail', { s: 'text' }, false],
	['={{ $json.s }}\n', { s: 'text' }, false],
	['={{ $json["s"] }}', { s: 'text' }, false],
	['={{ $json.s + "" }}', { s: 'text' }, false],
	['={{ $json.s.trim() }}', { s: ' text ' }, false],
	['={{ $json }}', { s: 'text' }, false],
	['={{ $json.d }}', { d: '2026-01-01T00:00:00.000Z' }, true],
	['=$json.s', { s: 'text' }, false],
	['plain text', { s: 'text' }, false],
	['={{ $json.s }}', { s: 'text', __proto__: { s: 'inherited' } }, false], // not a plain object
	['={{ $json.s }}', Object.assign(Object.create(null), { s: 'no prototype' }), true],
	['={{ $json.s }}', Object.assign(Object.create({ s: 'inherited' }), {}), false],
];

const outcome = (fn) => {
	try {
		return { value: fn() };
	} catch (error) {
		return { error: String(error && error.message) };
	}
};

async function main() {
	const base = 'http://127.0.0.1:5678/';
	const additionalData = {
		executionId: '1', variables: {}, restApiUrl: base + 'rest', instanceBaseUrl: base, webhookBaseUrl: base + 'webhook',
		webhookTestBaseUrl: base + 'webhook-test', webhookWaitingBaseUrl: base + 'webhook-waiting', formWaitingBaseUrl: base + 'form-waiting',
	};
	const nodeType = new Clearinghouse();
	const nodeTypes = { getByName: () => nodeType, getByNameAndVersion: () => nodeType, getKnownTypes: () => ({}) };
	const results = [];
	for (const [expression, json, native] of cases) {
		const node = {
			id: 'n1', name: 'Create', type: 'n8n-nodes-clearinghouse.clearinghouse', typeVersion: 1, position: [0, 0],
			parameters: { resource: 'paymentOrder', operation: 'create', memo: expression },
		};
		const workflow = new Workflow({ id: 'w1', nodes: [node], connections: {}, active: false, nodeTypes, settings: { executionOrder: 'v1' } });
		const items = [{ json: { other: 1 } }, { json }];
		const inputData = { main: [items] };
		const executeData = { node, data: inputData, source: { main: [{ previousNode: 'Input' }] } };
		const context = new ExecuteContext(workflow, node, additionalData, 'manual', createRunExecutionData(), 0, items, inputData, executeData, []);
		let engineCalls = 0;
		const counted = Object.create(context);
		counted.getNodeParameter = (...args) => {
			engineCalls++;
			return context.getNodeParameter(...args);
		};
		await workflow.expression.acquireIsolate();
		const ours = outcome(() => itemParameter(counted, 'memo', 1, ''));
		const theirs = outcome(() => context.getNodeParameter('memo', 1, ''));
		await workflow.expression.releaseIsolate();
		results.push({
			expression,
			json: util.inspect(json),
			native,
			skippedEngine: engineCalls === 0,
			same: util.isDeepStrictEqual(ours, theirs),
			ours: util.inspect(ours),
			theirs: util.inspect(theirs),
		});
	}
	return { results };
}
`;

describe('trivial $json parameters read without the engine equal the engine', () => {
	let n8n: N8nInstance;
	beforeAll(async () => {
		n8n = await N8nInstance.create(); // only for the packed package, installed as n8n installs it
	});
	afterAll(() => n8n?.dispose());

	test.each(['legacy', 'vm'])('%s engine: every value type, missing paths, arrays, blocked names', async (engine) => {
		const { n8nModules } = runtime();
		const { engine: active, results } = await runInN8nNode<{
			results: Array<{ expression: string; json: string; native: boolean; skippedEngine: boolean; same: boolean; ours: string; theirs: string }>;
		}>(SCRIPT, installedPackage(n8n), engine, { ...process.env, NODE_PATH: n8nModules, NODE_ENV: '' });
		expect(active).toBe(engine);
		expect(results).toHaveLength(56);
		// One line per case, so a failure names the case and both answers.
		const lines = (pick: (r: (typeof results)[number]) => unknown) => results.map((r) => `${r.expression} ${r.json}: ${String(pick(r))}`);
		expect(lines((r) => (r.same ? 'same' : `ours ${r.ours} engine ${r.theirs}`))).toEqual(lines(() => 'same'));
		expect(lines((r) => r.skippedEngine)).toEqual(lines((r) => r.native));
	});
});
