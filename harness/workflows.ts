import type { WorkflowInput } from './n8nProcess';

export const ACTION_NODE = 'n8n-nodes-clearinghouse.clearinghouse';
export const TRIGGER_NODE = 'n8n-nodes-clearinghouse.clearinghouseTrigger';
const CREDENTIAL_TYPE = 'clearinghouseApi';
/**
 * The one version each node of this package declares (test/repo/examples.test.ts holds them to the
 * nodes): the trigger's is 2, since n8n evaluates an expression on every delivery to a version 1 trigger.
 */
export const NODE_VERSIONS: Readonly<Record<string, number>> = { [ACTION_NODE]: 1, [TRIGGER_NODE]: 2 };

export interface CredentialRef {
	id: string;
	name: string;
}

export interface NodeSpec {
	name: string;
	type: string;
	parameters?: Record<string, unknown>;
	/** Default: the node's one version (NODE_VERSIONS) for this package's nodes, else 1. */
	typeVersion?: number;
	/** Any other node fields: retryOnFail, maxTries, waitBetweenTries, onError, webhookId, ... */
	[key: string]: unknown;
}

/**
 * A linear workflow: a Manual Trigger followed by `nodes` in order, each fed by the one before.
 * Clearinghouse nodes get the credential reference.
 */
export function chain(id: string, name: string, nodes: NodeSpec[], credential?: CredentialRef): WorkflowInput {
	const all: NodeSpec[] = [{ name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1 }, ...nodes];
	return graph(
		id,
		name,
		all,
		all.slice(1).map((node, index) => [all[index].name, node.name]),
		credential,
	);
}

/** A workflow from nodes and [from, to] (or [from, to, fromOutput]) connections. */
export function graph(
	id: string,
	name: string,
	nodes: NodeSpec[],
	edges: Array<[string, string] | [string, string, number]>,
	credential?: CredentialRef,
): WorkflowInput {
	const connections: Record<string, { main: Array<Array<{ node: string; type: 'main'; index: 0 }>> }> = {};
	for (const [from, to, output = 0] of edges) {
		const main = (connections[from] ??= { main: [] }).main;
		while (main.length <= output) main.push([]);
		main[output].push({ node: to, type: 'main', index: 0 });
	}
	return {
		id,
		name,
		nodes: nodes.map((node, index) => {
			const { name: nodeName, type, parameters = {}, typeVersion = NODE_VERSIONS[node.type] ?? 1, ...rest } = node;
			const isOurs = type.startsWith('n8n-nodes-clearinghouse.');
			return {
				id: `${id}-node-${index}`,
				name: nodeName,
				type,
				typeVersion,
				position: [index * 220, 0],
				parameters,
				...(isOurs && credential ? { credentials: { [CREDENTIAL_TYPE]: credential } } : {}),
				...rest,
			};
		}),
		connections,
		settings: { executionOrder: 'v1' },
	};
}

/** A Code node that emits the given items (json only). */
export function itemsNode(name: string, items: Array<Record<string, unknown>>): NodeSpec {
	return {
		name,
		type: 'n8n-nodes-base.code',
		typeVersion: 2,
		parameters: { jsCode: `return ${JSON.stringify(items.map((json) => ({ json })))};` },
	};
}

/**
 * "Create orders": Create Payment Order for every item `{ amountUsd, expiresAt, memo, key }` (the key as a
 * custom idempotency key), USDC on ethereum from `fromUserId` to `toAddress`; the queue suite's and
 * bench/queue-throughput.ts's batch.
 */
export function createOrdersNode(fromUserId: string, toAddress: string, concurrency = 5): NodeSpec {
	return action('Create orders', 'paymentOrder', 'create', {
		mode: 'standard',
		fromUserId,
		toAddress,
		toChain: 'ethereum',
		asset: 'USDC',
		amountUsd: '={{ $json.amountUsd }}',
		expiry: 'at',
		expiresAt: '={{ $json.expiresAt }}',
		memo: '={{ $json.memo }}',
		idempotencyKeyMode: 'custom',
		idempotencyKey: '={{ $json.key }}',
		options: { concurrency },
	});
}

/** Execute Workflow Trigger: a sub-workflow's start, passing on the items its caller sends. */
export function executeWorkflowTriggerNode(name: string): NodeSpec {
	return { name, type: 'n8n-nodes-base.executeWorkflowTrigger', typeVersion: 1.1, parameters: { inputSource: 'passthrough' } };
}

/** Execute Workflow: runs the saved workflow `workflowId` (as published, from the database) on the items it gets. */
export function executeWorkflowNode(name: string, workflowId: string): NodeSpec {
	return {
		name,
		type: 'n8n-nodes-base.executeWorkflow',
		typeVersion: 1.2,
		parameters: {
			source: 'database',
			workflowId: { __rl: true, mode: 'id', value: workflowId },
			workflowInputs: { mappingMode: 'defineBelow', value: {}, matchingColumns: [], schema: [], attemptToConvertTypes: false, convertFieldsToString: true },
			options: {},
		},
	};
}

/** A Clearinghouse action node. */
export function action(
	name: string,
	resource: string,
	operation: string,
	parameters: Record<string, unknown> = {},
	extra: Record<string, unknown> = {},
): NodeSpec {
	return { name, type: ACTION_NODE, parameters: { resource, operation, ...parameters }, ...extra };
}
