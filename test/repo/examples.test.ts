/**
 * The example workflows (examples/*.json) as files, without n8n: where their messages go is named in one
 * place a user edits once, and nothing in them asks a no-code person to read or write JavaScript.
 * (test/e2e/examples.test.ts and the other e2e files run them in a real n8n.)
 */
import { readFileSync } from 'fs';
import { join } from 'path';

import { Clearinghouse } from '../../nodes/Clearinghouse/Clearinghouse.node';
import { ClearinghouseTrigger } from '../../nodes/ClearinghouseTrigger/ClearinghouseTrigger.node';
import { exampleFiles, loadExample, OUTBOX_NODE, withOutbox } from '../../harness/examples';
import type { WorkflowInput } from '../../harness/n8nProcess';

type NodeJson = WorkflowInput['nodes'][number];

const examples = exampleFiles().map((file) => ({ file, workflow: loadExample(file) }));
const STICKY = 'n8n-nodes-base.stickyNote';
const OUTBOX_REFERENCE = `={{ $('${OUTBOX_NODE}').first().json.outboxUrl }}`;

/** Every string under `value` with its path (`parameters.assignments.assignments[2].value`). */
function* strings(value: unknown, path: string): Generator<[string, string]> {
	if (typeof value === 'string') yield [path, value];
	else if (Array.isArray(value)) for (const [i, v] of value.entries()) yield* strings(v, `${path}[${i}]`);
	else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) yield* strings(v, `${path}.${k}`);
}

/** The node's own fields a user can change, less the one place an address belongs (Where messages go → outboxUrl). */
function* editable(node: NodeJson): Generator<[string, string]> {
	if (node.type === STICKY) return; // what a person reads: may show an address to type, e.g. n8n in Docker's
	for (const [path, text] of strings(node.parameters, 'parameters')) {
		if (node.name === OUTBOX_NODE && /^parameters\.assignments\.assignments\[\d+\]\.value$/.test(path)) continue;
		yield [path, text];
	}
}

describe('examples: where the messages go', () => {
	// The sandbox's host or port, or its outbox path: each would tie the example to one machine.
	const ADDRESS = /127\.0\.0\.1|localhost|\[::1\]|host\.docker\.internal|:40\d\d\b|\/sandbox\/outbox/i;

	test('no example names the sandbox host, port or outbox anywhere but Where messages go → outboxUrl', () => {
		const found: string[] = [];
		for (const { file, workflow } of examples)
			for (const node of workflow.nodes)
				for (const [path, text] of editable(node)) if (ADDRESS.test(text)) found.push(`${file}: node "${node.name}" ${path}: ${text}`);
		expect(found).toEqual([]);
	});

	test('every example that posts messages has one Where messages go (Edit Fields, outboxUrl) and posts only under it', () => {
		const problems: string[] = [];
		let posting = 0;
		for (const { file, workflow } of examples) {
			const posts = workflow.nodes.filter((n) => n.type === 'n8n-nodes-base.httpRequest');
			const places = workflow.nodes.filter((n) => n.name === OUTBOX_NODE);
			if (posts.length === 0) {
				if (places.length) problems.push(`${file}: "${OUTBOX_NODE}" but no HTTP Request node`);
				continue;
			}
			posting++;
			const fields = (places[0]?.parameters as any)?.assignments?.assignments ?? [];
			if (places.length !== 1 || places[0].type !== 'n8n-nodes-base.set' || fields.length !== 1 || fields[0].name !== 'outboxUrl')
				problems.push(`${file}: needs one Edit Fields node "${OUTBOX_NODE}" with the single field outboxUrl`);
			for (const post of posts) {
				const url = String((post.parameters as any).url);
				if (!url.startsWith(OUTBOX_REFERENCE + '/')) problems.push(`${file}: node "${post.name}" posts to ${url}, not under ${OUTBOX_REFERENCE}`);
			}
		}
		expect(problems).toEqual([]);
		expect(posting).toBe(6); // Examples 1, 2, 3, 5, 6 and 8
	});

	test('Where messages go runs first: every trigger leads into it, so every post can read it', () => {
		for (const { file, workflow } of examples) {
			if (!workflow.nodes.some((n) => n.name === OUTBOX_NODE)) continue;
			const triggers = workflow.nodes.filter((n) => /trigger/i.test(String(n.type)));
			expect({ file, into: triggers.map((t) => (workflow.connections as any)[String(t.name)]?.main?.[0]?.map((c: any) => c.node)) }).toEqual({
				file,
				into: triggers.map(() => [OUTBOX_NODE]),
			});
		}
	});

	test('withOutbox sets the one field to a sandbox on any port, as a user edits it, and nothing else', () => {
		for (const { file, workflow } of examples) {
			const moved = withOutbox(workflow, 'http://10.213.0.1:4310/');
			const before = JSON.stringify(workflow);
			if (!workflow.nodes.some((n) => n.name === OUTBOX_NODE)) {
				expect(JSON.stringify(moved)).toBe(before);
				continue;
			}
			const field = (moved.nodes.find((n) => n.name === OUTBOX_NODE)!.parameters as any).assignments.assignments[0];
			expect({ file, value: field.value }).toEqual({ file, value: 'http://10.213.0.1:4310/sandbox/outbox' });
			field.value = 'http://127.0.0.1:4010/sandbox/outbox';
			expect(JSON.stringify(moved)).toBe(before);
		}
	});
});

/**
 * What in an expression only a programmer can edit safely, and the no-code way instead. Property access,
 * `??` defaults and n8n's documented helpers ($json.x, $now.toFormat(...), $('Node').first().json.x,
 * JSON.stringify($json)) stay allowed.
 */
const JAVASCRIPT: Array<[RegExp, string]> = [
	[/=>/, 'an arrow function (use Edit Fields, Filter, Summarize or Aggregate)'],
	[/\bfunction\b/, 'a function (use Edit Fields, Filter, Summarize or Aggregate)'],
	[/(?<!\?)\?(?![?.])/, 'a ternary (use an If or a Switch per case)'],
	[/\$\{/, 'a template literal (write the text around {{ }} instead)'],
	[/&&|\|\|/, 'a logical && or || (use the conditions of an If or Filter, with AND or OR)'],
];

/** The `{{ … }}` parts of an n8n expression (a parameter value starting with "="): as written, and with string literals emptied. */
function expressionCode(value: string): Array<[string, string]> {
	if (!value.startsWith('=')) return [];
	return [...value.matchAll(/\{\{([\s\S]*?)\}\}/g)].map((m) => [
		m[1].trim(),
		m[1].replace(/'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|`(?:[^`\\$]|\\.|\$(?!\{))*`/g, "''"),
	]);
}

/** "example, node, parameter: what" for each piece of JavaScript logic inside an expression. */
function javascriptIn(file: string, workflow: WorkflowInput): string[] {
	const found: string[] = [];
	for (const node of workflow.nodes)
		for (const [path, text] of strings(node.parameters, 'parameters'))
			for (const [written, code] of expressionCode(text))
				for (const [pattern, what] of JAVASCRIPT)
					if (pattern.test(code)) found.push(`${file}, node "${node.name}", ${path}: ${what}: {{ ${written.slice(0, 80)} }}`);
	return found;
}

describe('examples: editable without JavaScript', () => {
	test('no example holds an arrow, a function, a ternary, a template literal, && or || inside {{ }}', () => {
		expect(examples.flatMap(({ file, workflow }) => javascriptIn(file, workflow))).toEqual([]);
	});

	test('the check finds each construct and names the example, node and parameter; plain mappings pass', () => {
		const workflow = (value: string) => ({ name: 'w', nodes: [{ name: 'Summary', type: 'n8n-nodes-base.set', parameters: { a: { b: [value] } } }] }) as any;
		expect(javascriptIn('x.json', workflow('={{ $json.list.filter((o) => o.created) }}'))).toEqual([
			expect.stringMatching(/^x\.json, node "Summary", parameters\.a\.b\[0\]: an arrow function/),
		]);
		for (const code of ['$json.a ? 1 : 2', 'function () { return 1 }', '`${$json.a}`', '$json.a || $json.b', '$json.a && 1'])
			expect({ code, found: javascriptIn('x.json', workflow(`={{ ${code} }}`)).length }).toEqual({ code, found: 1 });
		for (const code of [
			"$('Create payment orders').first().json.note",
			"$now.toFormat('yyyy-MM')",
			'$json.paymentOrder?.memo ?? ""',
			"'Is it paid? => maybe && || ${x}'",
			'JSON.stringify($json)',
		])
			expect({ code, found: javascriptIn('x.json', workflow(`=Text {{ ${code} }} and more`)) }).toEqual({ code, found: [] });
		// Not an expression: text a node shows as it is.
		expect(javascriptIn('x.json', workflow('(o) => o ? 1 : 2'))).toEqual([]);
	});
});

describe('the queue-mode recipe (examples/queue/payment-order-events-once.json)', () => {
	const recipe = JSON.parse(readFileSync(join(__dirname, '..', '..', 'examples', 'queue', 'payment-order-events-once.json'), 'utf8')) as WorkflowInput;

	test("its Clearinghouse nodes are at today's versions (a trigger added today: Pass Unknown Statuses off)", () => {
		const newest: Record<string, number | undefined> = {
			'n8n-nodes-clearinghouse.clearinghouse': new Clearinghouse().description.defaultVersion,
			'n8n-nodes-clearinghouse.clearinghouseTrigger': new ClearinghouseTrigger().description.defaultVersion,
		};
		const ours = recipe.nodes.filter((n) => String(n.type) in newest);
		// The trigger; no action node (the trigger's confirmed order is the step's input: no second read).
		expect(ours.map((n) => n.type)).toEqual(['n8n-nodes-clearinghouse.clearinghouseTrigger']);
		for (const node of ours) expect({ node: node.name, typeVersion: node.typeVersion }).toEqual({ node: node.name, typeVersion: newest[String(node.type)] });
	});

	test("its business step reads the trigger's order, confirmed with the API (the option at its default, on), so the recipe reads no order again", () => {
		const trigger = recipe.nodes.find((n) => n.type === 'n8n-nodes-clearinghouse.clearinghouseTrigger');
		expect((trigger?.parameters as { options?: Record<string, unknown> }).options?.confirmWithApi ?? true).toBe(true);
		expect(String(recipe.nodes.find((n) => n.name === 'Your business step')?.notes)).toContain("$('Clearinghouse Trigger').item.json.paymentOrder");
	});

	test('the CREATE TABLE its claim needs is on the page users follow (docs/queue-mode.md), as the recipe note says it', () => {
		const claim = recipe.nodes.find((n) => n.name === 'Claim the order state');
		const statement = /CREATE TABLE[^\n]*;/.exec(String(claim?.notes))?.[0];
		expect(statement).toBeDefined();
		expect(readFileSync(join(__dirname, '..', '..', 'docs', 'queue-mode.md'), 'utf8')).toContain(statement);
	});
});
