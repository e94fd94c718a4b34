/**
 * The benchmark workflows. Each n8n contender starts at a Webhook node (responding when the last
 * node is done) so that one running n8n serves every run: no process start per run, and the wall
 * time of the HTTP call is the execution. An "empty" twin of each (same trigger and input, no
 * work) measures n8n's fixed per-execution overhead, which is subtracted.
 */
import type { WorkflowInput } from '../harness/n8nProcess';
import { ACTION_NODE, graph, TRIGGER_NODE, type CredentialRef, type NodeSpec } from '../harness/workflows';
import { PAYMENT_ORDER_STATUSES } from '../nodes/shared/paymentOrderStatus';

export const IDS = {
	batchEmpty: 'benchBatchEmpty1',
	batchNode: 'benchBatchNode01',
	batchHttp: 'benchBatchHttp01',
	batchNodeFixed: 'benchBatchNodeFx',
	batchNodeAutoMap: 'benchBatchNodeAM',
	listEmpty: 'benchListEmpty01',
	listNode: 'benchListNode001',
	listHttp: 'benchListHttp001',
	listHttpSplit: 'benchListHttpSp1',
	trigger: 'benchTrigger0001',
	triggerConfirmed: 'benchTriggerConf',
	triggerV1: 'benchTriggerV1001',
	plainWebhook: 'benchPlainHook01',
	trivial: 'benchTrivial0001',
} as const;

/** The webhook path of every published bench workflow (the trigger is published later). */
export const WEBHOOK_PATHS: Record<string, string> = {
	benchBatchEmpty1: 'bench-batch-empty',
	benchBatchNode01: 'bench-batch-node',
	benchBatchNodeFx: 'bench-batch-node-fixed',
	benchBatchNodeAM: 'bench-batch-node-automap',
	benchBatchHttp01: 'bench-batch-http',
	benchListEmpty01: 'bench-list-empty',
	benchListNode001: 'bench-list-node',
	benchListHttp001: 'bench-list-http',
	benchListHttpSp1: 'bench-list-http-split',
	benchPlainHook01: 'bench-plain-webhook',
};

const TRIGGER_WEBHOOK_ID = 'b3c1d2e4-0b5e-4c3a-8f00-be7c00000001';
/**
 * The trigger contenders: its one version (2) with and without confirmation, and the same node saved as
 * typeVersion 1, which it does not declare (n8n runs it anyway): what n8n's per-delivery expression for a
 * version 1 trigger costs, the reason the trigger's one version is 2.
 */
export const TRIGGER_CONTENDERS = {
	trigger: { id: IDS.trigger, webhookId: TRIGGER_WEBHOOK_ID, typeVersion: 2, confirmWithApi: false },
	triggerConfirmed: { id: IDS.triggerConfirmed, webhookId: 'b3c1d2e4-0b5e-4c3a-8f00-be7c00000002', typeVersion: 2, confirmWithApi: true },
	triggerV1: { id: IDS.triggerV1, webhookId: 'b3c1d2e4-0b5e-4c3a-8f00-be7c00000003', typeVersion: 1, confirmWithApi: false },
} as const;
export type TriggerContender = keyof typeof TRIGGER_CONTENDERS;
export const PLAIN_PATH = 'bench-plain-webhook';

/** Execution data of the timed runs is not saved: saving 100,000 items would be timed too. */
const noSave = { executionOrder: 'v1', saveDataSuccessExecution: 'none', saveDataErrorExecution: 'all', saveManualExecutions: false };

function hook(path: string, responseMode: 'lastNode' | 'onReceived' = 'lastNode'): NodeSpec {
	return {
		name: 'Webhook',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		webhookId: `bench-${path}`,
		parameters: { httpMethod: 'POST', path, responseMode, options: {} },
	};
}

/** Webhook body `{orders: [...]}` → one item per order, in n8n itself (no Code node, no task runner). */
const splitOrders: NodeSpec = {
	name: 'Items',
	type: 'n8n-nodes-base.splitOut',
	typeVersion: 1,
	parameters: { fieldToSplitOut: 'body.orders', include: 'noOtherFields', options: {} },
};

function linear(id: string, name: string, nodes: NodeSpec[], credential: CredentialRef, settings = noSave): WorkflowInput {
	const workflow = graph(
		id,
		name,
		nodes,
		nodes.slice(1).map((node, i) => [nodes[i].name, node.name] as [string, string]),
		credential,
	);
	return { ...workflow, settings };
}

/** The fields every batch order shares (only the idempotency key differs from order to order). */
export interface BatchOrderFields {
	fromUserId: string;
	toAddress: string;
	toChain: string;
	asset: string;
	amountUsd: number;
	memo: string;
	expiresAt: string;
}

/**
 * The same request bodies either way. `mapped`: every field from the item's `body` by expression,
 * as a user maps item fields (the 7 BatchOrderFields plus the key: 8 parameter expressions per item, all
 * trivial `$json` paths, which the node reads without n8n's engine: n8n's count shows it);
 * otherwise fixed values and only the key from the item (1 expression per item, like the HTTP
 * Request node's one JSON body expression).
 */
function createOrderNode(concurrency: number, fixed?: BatchOrderFields): NodeSpec {
	const field = (name: keyof BatchOrderFields) => (fixed ? fixed[name] : `={{ $json.body.${name} }}`);
	return {
		name: 'Create',
		type: ACTION_NODE,
		parameters: {
			resource: 'paymentOrder',
			operation: 'create',
			mode: 'standard',
			fromUserId: field('fromUserId'),
			toAddress: field('toAddress'),
			toChain: field('toChain'),
			asset: field('asset'),
			amountUsd: fixed ? String(fixed.amountUsd) : field('amountUsd'),
			memo: field('memo'),
			expiry: 'at',
			expiresAt: field('expiresAt'),
			idempotencyKeyMode: 'custom',
			idempotencyKey: '={{ $json.body.idempotencyKey }}',
			options: { concurrency },
		},
	};
}

/**
 * Order Fields → Map Automatically: every body field and the business key (field `idempotencyKey`)
 * read from the item by name, no expression; the expiry (the same for every order) fixed.
 */
function createOrderNodeAutoMap(concurrency: number, expiresAt: string): NodeSpec {
	return {
		name: 'Create',
		type: ACTION_NODE,
		parameters: {
			resource: 'paymentOrder',
			operation: 'create',
			mode: 'standard',
			dataMode: 'autoMapInputData',
			expiry: 'at',
			expiresAt,
			idempotencyKeyMode: 'custom',
			businessKeyField: 'idempotencyKey',
			options: { concurrency },
		},
	};
}

function httpCreateNode(mainUrl: string, credential: CredentialRef): NodeSpec {
	return {
		name: 'Create',
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		credentials: { clearinghouseApi: credential },
		parameters: {
			method: 'POST',
			url: `${mainUrl}/api/v1/payment`,
			authentication: 'predefinedCredentialType',
			nodeCredentialType: 'clearinghouseApi',
			sendHeaders: true,
			headerParameters: { parameters: [{ name: 'accept', value: 'application/json' }] },
			sendBody: true,
			specifyBody: 'json',
			jsonBody: '={{ $json.body }}',
			options: {},
		},
	};
}

function httpListNode(mainUrl: string, credential: CredentialRef, fromUserId: string, pageSize: number): NodeSpec {
	return {
		name: 'List',
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		credentials: { clearinghouseApi: credential },
		parameters: {
			method: 'GET',
			url: `${mainUrl}/api/v1/payment-orders`,
			authentication: 'predefinedCredentialType',
			nodeCredentialType: 'clearinghouseApi',
			sendQuery: true,
			queryParameters: {
				parameters: [
					{ name: 'fromUserId', value: fromUserId },
					// Required by the reference; the node sends every known status too.
					{ name: 'status', value: PAYMENT_ORDER_STATUSES.join(',') },
					{ name: 'limit', value: String(pageSize) },
					{ name: 'offset', value: '0' },
				],
			},
			sendHeaders: true,
			headerParameters: { parameters: [{ name: 'accept', value: 'application/json' }] },
			options: {
				pagination: {
					pagination: {
						paginationMode: 'updateAParameterInEachRequest',
						parameters: {
							parameters: [{ type: 'qs', name: 'offset', value: '={{ $response.body.offset + $response.body.paymentOrders.length }}' }],
						},
						paginationCompleteWhen: 'other',
						completeExpression: '={{ !$response.body.hasMore }}',
						limitPagesFetched: false,
						requestInterval: 0,
					},
				},
			},
		},
	};
}

export function benchWorkflows(o: {
	mainUrl: string;
	credential: CredentialRef;
	concurrency: number;
	listUserId: string;
	pageSize: number;
	order: BatchOrderFields;
}): WorkflowInput[] {
	const { mainUrl, credential } = o;
	return [
		linear(IDS.batchEmpty, 'bench: batch, n8n only', [hook('bench-batch-empty'), splitOrders, { name: 'Done', type: 'n8n-nodes-base.noOp' }], credential),
		linear(IDS.batchNode, 'bench: batch, Clearinghouse node', [hook('bench-batch-node'), splitOrders, createOrderNode(o.concurrency)], credential),
		linear(
			IDS.batchNodeFixed,
			'bench: batch, Clearinghouse node, fixed fields',
			[hook('bench-batch-node-fixed'), splitOrders, createOrderNode(o.concurrency, o.order)],
			credential,
		),
		linear(
			IDS.batchNodeAutoMap,
			'bench: batch, Clearinghouse node, fields mapped automatically',
			[hook('bench-batch-node-automap'), splitOrders, createOrderNodeAutoMap(o.concurrency, o.order.expiresAt)],
			credential,
		),
		linear(IDS.batchHttp, 'bench: batch, HTTP Request node', [hook('bench-batch-http'), splitOrders, httpCreateNode(mainUrl, credential)], credential),
		linear(IDS.listEmpty, 'bench: list, n8n only', [hook('bench-list-empty'), { name: 'Done', type: 'n8n-nodes-base.noOp' }], credential),
		linear(
			IDS.listNode,
			'bench: list, Clearinghouse node',
			[
				hook('bench-list-node'),
				{
					name: 'List',
					type: ACTION_NODE,
					parameters: {
						resource: 'paymentOrder',
						operation: 'getMany',
						returnAll: true,
						filters: { fromUserId: o.listUserId },
						options: { pageSize: o.pageSize },
					},
				},
			],
			credential,
		),
		linear(
			IDS.listHttp,
			'bench: list, HTTP Request pagination',
			[hook('bench-list-http'), httpListNode(mainUrl, credential, o.listUserId, o.pageSize)],
			credential,
		),
		linear(
			IDS.listHttpSplit,
			'bench: list, HTTP Request pagination + Split Out',
			[
				hook('bench-list-http-split'),
				httpListNode(mainUrl, credential, o.listUserId, o.pageSize),
				{
					name: 'Orders',
					type: 'n8n-nodes-base.splitOut',
					typeVersion: 1,
					parameters: { fieldToSplitOut: 'paymentOrders', include: 'noOtherFields', options: {} },
				},
			],
			credential,
		),
		// Trigger contenders keep n8n's default saving: an execution counts once it is in the database.
		// Made-up orders (and the figure is verification against a plain Webhook): confirmation off,
		// except for the confirmed contender, whose deliveries name one real order at new event ids
		// (stale dropping off there, so that each of them runs; its cost is what the API read adds).
		...Object.entries(TRIGGER_CONTENDERS).map(([name, c]) =>
			graph(
				c.id,
				`bench: Clearinghouse Trigger (${name})`,
				[
					{
						name: 'Trigger',
						type: TRIGGER_NODE,
						typeVersion: c.typeVersion,
						webhookId: c.webhookId,
						parameters: { options: c.confirmWithApi ? { dropStaleEvents: false } : { confirmWithApi: false } },
					},
					{ name: 'Received', type: 'n8n-nodes-base.noOp' },
				],
				[['Trigger', 'Received']],
				credential,
			),
		),
		graph(
			IDS.plainWebhook,
			'bench: plain Webhook',
			[hook(PLAIN_PATH, 'onReceived'), { name: 'Received', type: 'n8n-nodes-base.noOp' }],
			[['Webhook', 'Received']],
		),
	];
}

/** Manual Trigger → No Op: what `n8n execute` runs to time n8n's start with and without the package. */
export function trivialWorkflow(): WorkflowInput {
	return graph(
		IDS.trivial,
		'bench: trivial',
		[
			{ name: 'Start', type: 'n8n-nodes-base.manualTrigger' },
			{ name: 'Done', type: 'n8n-nodes-base.noOp' },
		],
		[['Start', 'Done']],
	);
}
