/**
 * The example workflows (examples/*.json) as files, without n8n: where their messages go is named in one
 * place a user edits once.
 * (test/e2e/examples.test.ts and the other e2e files run them in a real n8n.)
 */
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
