import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { WorkflowInput } from './n8nProcess';
import { repoRoot } from './runtime';

export const examplesDir = join(repoRoot, 'examples');

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

/** Replaces a node in place (same name, position and connections), e.g. Slack by a local receiver. */
export function swapNode(workflow: WorkflowInput, name: string, replacement: Omit<NodeJson, 'name' | 'position' | 'id'>): void {
	const node = findNode(workflow, name);
	for (const key of Object.keys(node)) if (!['name', 'position', 'id'].includes(key)) delete node[key];
	Object.assign(node, replacement);
}

/** An HTTP Request node that POSTs a JSON body (an n8n expression) to a URL. */
export function postJson(url: string, jsonBody: string) {
	return {
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		parameters: { method: 'POST', url, sendBody: true, specifyBody: 'json', jsonBody, options: {} },
	};
}
