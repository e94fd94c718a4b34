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
