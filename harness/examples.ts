import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { WorkflowInput } from './n8nProcess';
import { repoRoot } from './runtime';

const examplesDir = join(repoRoot, 'examples');

/** The example workflows as shipped (examples/*.json), by file name. */
export function loadExample(file: string): WorkflowInput {
	return JSON.parse(readFileSync(join(examplesDir, file), 'utf8')) as WorkflowInput;
}

export function exampleFiles(): string[] {
	return readdirSync(examplesDir)
		.filter((name) => name.endsWith('.json'))
		.sort();
}

type NodeJson = WorkflowInput['nodes'][number];

export function findNode(workflow: WorkflowInput, name: string): NodeJson {
	const node = workflow.nodes.find((n) => n.name === name);
	if (!node) throw new Error(`workflow ${workflow.name} has no node "${name}"`);
	return node;
}

/** The node where an example names the address its messages are posted to: the one place a user edits. */
export const OUTBOX_NODE = 'Where messages go';

/**
 * What a user does once after importing: sets **Where messages go → outboxUrl** to the outbox of the sandbox at
 * `sandboxUrl` (e.g. `http://127.0.0.1:4310`). A copy; an example that posts no messages is returned as it is.
 */
export function withOutbox(workflow: WorkflowInput, sandboxUrl: string): WorkflowInput {
	const copy = JSON.parse(JSON.stringify(workflow)) as WorkflowInput;
	const node = copy.nodes.find((n) => n.name === OUTBOX_NODE);
	if (!node) return copy;
	const field = (node.parameters as any).assignments.assignments.find((a: { name: string }) => a.name === 'outboxUrl');
	if (!field) throw new Error(`${workflow.name}: "${OUTBOX_NODE}" has no outboxUrl field`);
	field.value = `${sandboxUrl.replace(/\/+$/, '')}/sandbox/outbox`;
	return copy;
}
