import { EventEmitter } from 'node:events';
/**
 * Runs our nodes inside n8n-core's real execution contexts (the same classes n8n uses), with a
 * real credential sent over real HTTP. Only what n8n's server process would provide around them
 * (credential storage, the HTTP request of a webhook) is supplied here.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// n8n-core keeps its instance settings (and so the instance id) under the user folder: isolate it
// before n8n-core is loaded.
process.env.N8N_USER_FOLDER ??= mkdtempSync(join(tmpdir(), 'clearinghouse-n8n-test-'));

import { ExecuteContext, HookContext, LoadOptionsContext, WebhookContext } from 'n8n-core';
import type {
	IAuthenticateGeneric,
	ICredentialDataDecryptedObject,
	ICredentialType,
	IDataObject,
	IExecuteData,
	IHttpRequestOptions,
	INode,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	INodeTypes,
	IRunExecutionData,
	IWebhookData,
	IWorkflowExecuteAdditionalData,
	WorkflowActivateMode,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { createRunExecutionData, Workflow } from 'n8n-workflow';

import { ClearinghouseApi } from '../credentials/ClearinghouseApi.credentials';

export interface TestCredentials {
	apiKey: string;
	baseUrl: string;
	rewardsUrl?: string;
	/** The credential's Environment: unset is Production, as for a credential saved before the field existed. */
	environment?: 'production' | 'sandbox';
}

export interface NodeSetup {
	parameters: INodeParameters;
	credentials: TestCredentials;
	/** Node name (part of the derived idempotency keys). */
	name?: string;
	/** Node id (not part of the derived keys); a pasted copy of a node gets a new one. */
	nodeId?: string;
	workflowId?: string;
	executionId?: string;
	/** Shared across calls to emulate n8n keeping a workflow's static data. */
	staticData?: IDataObject;
	continueOnFail?: boolean;
	mode?: WorkflowExecuteMode;
	webhookId?: string;
	/** As an AI agent's tool: n8n's `<package>.<name>Tool` node type (the input items stand for the model's tool call). */
	asTool?: boolean;
	/** A node with no credential chosen (a new node whose panel loads its lists before n8n gives it one). */
	withoutCredential?: boolean;
}

const credentialType = new ClearinghouseApi();

function nodeTypesFor(nodeType: INodeType): INodeTypes {
	return {
		getByName: () => nodeType,
		getByNameAndVersion: () => nodeType,
		getKnownTypes: () => ({}),
	};
}

function makeNode(nodeType: INodeType, setup: NodeSetup): INode {
	return {
		id: setup.nodeId ?? 'node-under-test',
		name: setup.name ?? nodeType.description.defaults.name ?? nodeType.description.displayName,
		type: `n8n-nodes-clearinghouse.${nodeType.description.name}${setup.asTool ? 'Tool' : ''}`,
		typeVersion: ([] as number[]).concat(nodeType.description.version).slice(-1)[0],
		position: [0, 0],
		parameters: setup.parameters,
		credentials: setup.withoutCredential ? undefined : { clearinghouseApi: { id: 'cred-1', name: 'Clearinghouse sandbox' } },
		onError: setup.continueOnFail ? 'continueRegularOutput' : 'stopWorkflow',
		webhookId: setup.webhookId ?? 'test-webhook-id',
	};
}

export function makeWorkflow(nodeType: INodeType, setup: NodeSetup): { workflow: Workflow; node: INode } {
	const node = makeNode(nodeType, setup);
	const workflow = new Workflow({
		id: setup.workflowId ?? 'wf-test',
		name: 'Clearinghouse test workflow',
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes: nodeTypesFor(nodeType),
		staticData: setup.staticData,
		settings: {},
	});
	// Workflow copies static data into its own object: hand the caller's object back in, so tests
	// see what the node wrote and can pass it to a "restarted" workflow.
	if (setup.staticData) workflow.staticData = setup.staticData as typeof workflow.staticData;
	return { workflow, node };
}

/** Applies a credential's `authenticate` the way n8n's CredentialsHelper does (function or generic). */
async function authenticate(
	workflow: Workflow,
	node: INode,
	credentials: ICredentialDataDecryptedObject,
	type: ICredentialType,
	options: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	if (typeof type.authenticate === 'function') return await type.authenticate(credentials, options);
	const auth = type.authenticate as IAuthenticateGeneric;
	const resolve = (value: unknown) =>
		typeof value === 'string' && value.startsWith('=')
			? workflow.expression.getSimpleParameterValue(node, value, 'internal', {
					$credentials: credentials,
				} as never)
			: value;
	const headers = { ...(options.headers ?? {}) } as IDataObject;
	for (const [key, value] of Object.entries(auth.properties.headers ?? {})) headers[key] = resolve(value) as string;
	return { ...options, headers };
}

export function additionalDataFor(setup: NodeSetup, extra: Partial<IWorkflowExecuteAdditionalData> = {}): IWorkflowExecuteAdditionalData {
	const data = {
		apiKey: setup.credentials.apiKey,
		baseUrl: setup.credentials.baseUrl,
		rewardsUrl: setup.credentials.rewardsUrl ?? '',
		...(setup.credentials.environment === undefined ? {} : { environment: setup.credentials.environment }),
	};
	const credentialsHelper = {
		getParentTypes: () => [],
		getDecrypted: async () => ({ ...data }),
		preAuthentication: async () => undefined,
		authenticate: async (credentials: ICredentialDataDecryptedObject, _type: string, options: IHttpRequestOptions, workflow: Workflow, node: INode) =>
			await authenticate(workflow, node, credentials, credentialType, options),
		getCredentialsProperties: () => credentialType.properties,
		isCredentialUsableByNode: () => true,
	};
	return {
		executionId: setup.executionId ?? '1',
		credentialsHelper,
		restApiUrl: 'http://127.0.0.1:5678/rest',
		instanceBaseUrl: 'http://127.0.0.1:5678/',
		webhookBaseUrl: 'http://127.0.0.1:5678/webhook',
		webhookTestBaseUrl: 'http://127.0.0.1:5678/webhook-test',
		webhookWaitingBaseUrl: 'http://127.0.0.1:5678/webhook-waiting',
		formWaitingBaseUrl: 'http://127.0.0.1:5678/form-waiting',
		variables: {},
		currentNodeParameters: undefined,
		executeWorkflow: async () => {
			throw new Error('not available in tests');
		},
		getRunExecutionData: async () => undefined,
		logAiEvent: () => {},
		startRunnerTask: async () => {
			throw new Error('not available in tests');
		},
		...extra,
	} as unknown as IWorkflowExecuteAdditionalData;
}

export interface RunOptions extends NodeSetup {
	items?: INodeExecutionData[];
	/**
	 * Emulates n8n's "Retry On Fail": the whole execute() runs again in the same execution, when it
	 * throws or (with Continue On Fail) when its first output item carries `json.error`.
	 */
	retryOnFail?: { maxTries: number };
	/**
	 * The execution's run data (n8n keeps one per execution: Retry On Fail reuses it, and n8n's
	 * Retry from the executions list carries the retried one, custom data included). Default new.
	 */
	runExecutionData?: IRunExecutionData;
	/** Which run of the node this is (a loop runs a node several times). Default 0. */
	runIndex?: number;
	/** What n8n's server would set otherwise (e.g. the webhook base URLs it builds from WEBHOOK_URL). */
	additionalData?: Partial<IWorkflowExecuteAdditionalData>;
}

/** Runs the node's execute() once for the given input items in n8n-core's ExecuteContext. */
export async function runNode(nodeType: INodeType, options: RunOptions): Promise<INodeExecutionData[][]> {
	const items = options.items ?? [{ json: {} }];
	const { workflow, node } = makeWorkflow(nodeType, options);
	const additionalData = additionalDataFor(options, options.additionalData);
	const mode = options.mode ?? 'manual';
	const tries = options.retryOnFail ? options.retryOnFail.maxTries : 1;
	let lastError: unknown;
	const runExecutionData: IRunExecutionData = options.runExecutionData ?? createRunExecutionData();
	for (let attempt = 1; attempt <= tries; attempt++) {
		const executeData: IExecuteData = {
			node,
			data: { main: [items] },
			source: { main: [{ previousNode: 'Input' }] },
		};
		const context = new ExecuteContext(
			workflow,
			node,
			additionalData,
			mode,
			runExecutionData,
			options.runIndex ?? 0,
			items,
			{ main: [items] },
			executeData,
			[],
		);
		try {
			const result = (await nodeType.execute!.call(context)) as INodeExecutionData[][];
			// n8n 2.40.7 also retries when Continue On Fail put an error on the first output item,
			// and then re-runs every item (see the platform guide).
			const firstItemFailed = result?.[0]?.[0]?.json?.error !== undefined;
			if (options.continueOnFail && firstItemFailed && attempt < tries) continue;
			return result;
		} catch (error) {
			lastError = error;
		}
	}
	throw lastError;
}

export async function loadOptions(nodeType: INodeType, method: string, setup: NodeSetup): Promise<unknown> {
	const { workflow, node } = makeWorkflow(nodeType, setup);
	// n8n hands a load-options call the node's current parameters (for loadOptionsDependsOn).
	const context = new LoadOptionsContext(workflow, node, additionalDataFor(setup, { currentNodeParameters: node.parameters }), 'parameters');
	const methods = nodeType.methods as Record<string, Record<string, (...args: unknown[]) => unknown>>;
	const fn = methods.loadOptions?.[method] ?? methods.listSearch?.[method];
	if (!fn) throw new Error(`no load-options or list-search method ${method}`);
	return await fn.call(context);
}

export async function listSearch(nodeType: INodeType, method: string, setup: NodeSetup, filter?: string, paginationToken?: string): Promise<unknown> {
	const { workflow, node } = makeWorkflow(nodeType, setup);
	const context = new LoadOptionsContext(workflow, node, additionalDataFor(setup), 'parameters');
	const fn = (nodeType.methods?.listSearch as Record<string, (...args: unknown[]) => unknown>)[method];
	return await fn.call(context, filter, paginationToken);
}

function webhookDataFor(workflow: Workflow, node: INode, setup: NodeSetup): IWebhookData {
	return {
		httpMethod: 'POST',
		node: node.name,
		path: `${setup.webhookId ?? 'test-webhook-id'}/webhook`,
		webhookDescription: { name: 'default', httpMethod: 'POST', path: 'webhook' },
		workflowId: workflow.id,
		workflowExecuteAdditionalData: additionalDataFor(setup),
		webhookId: setup.webhookId ?? 'test-webhook-id',
	} as IWebhookData;
}

/**
 * A HookContext for checkExists/create/delete, over a workflow whose static data the caller holds.
 * `setup.mode` 'manual' is the editor's test registration (n8n's `isTest`); `extra` sets e.g. the
 * webhook base URLs n8n would build the node's webhook URL from.
 */
export function hookContext(
	nodeType: INodeType,
	setup: NodeSetup,
	extra: Partial<IWorkflowExecuteAdditionalData> = {},
	activation: WorkflowActivateMode = 'activate',
): HookContext {
	const { workflow, node } = makeWorkflow(nodeType, setup);
	const isTest = setup.mode === 'manual';
	const additionalData = additionalDataFor(setup, extra);
	const webhookData = { ...webhookDataFor(workflow, node, setup), workflowExecuteAdditionalData: additionalData, isTest };
	// n8n deregisters with mode 'internal' (webhook.service.js deleteWebhook); it registers with 'trigger'.
	const mode = isTest ? 'manual' : setup.mode === 'internal' ? 'internal' : 'trigger';
	return new HookContext(workflow, node, additionalData, mode, activation, webhookData);
}

export interface IncomingRequest {
	headers: Record<string, string>;
	rawBody: Buffer;
	query?: IDataObject;
}

/** What the node wrote to the HTTP response, when it answers the request itself. */
export interface CapturedResponse {
	statusCode?: number;
	body?: unknown;
	headers: Record<string, string>;
	ended: boolean;
}

/**
 * A WebhookContext for webhook(), with the request as n8n's webhook server hands it over
 * (express-like: parsed JSON `body` plus the exact `rawBody` bytes, lower-cased headers).
 */
export function webhookContext(
	nodeType: INodeType,
	setup: NodeSetup,
	request: IncomingRequest,
): { context: WebhookContext; response: CapturedResponse; answer: (statusCode: number) => void } {
	const { workflow, node } = makeWorkflow(nodeType, setup);
	const headers = Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k.toLowerCase(), v]));
	let body: unknown = {};
	try {
		body = JSON.parse(request.rawBody.toString('utf8'));
	} catch {
		body = {};
	}
	const httpRequest = {
		method: 'POST',
		headers,
		body,
		rawBody: request.rawBody,
		query: request.query ?? {},
		params: {},
		url: '/webhook/test',
		get: (name: string) => headers[name.toLowerCase()],
		header: (name: string) => headers[name.toLowerCase()],
	};
	const response: CapturedResponse = { headers: {}, ended: false };
	const httpResponse = {
		status(code: number) {
			response.statusCode = code;
			return httpResponse;
		},
		setHeader(name: string, value: string) {
			response.headers[name.toLowerCase()] = value;
			return httpResponse;
		},
		header(name: string, value: string) {
			response.headers[name.toLowerCase()] = value;
			return httpResponse;
		},
		json(payload: unknown) {
			response.body = payload;
			response.ended = true;
			return httpResponse;
		},
		send(payload: unknown) {
			response.body = payload;
			response.ended = true;
			return httpResponse;
		},
		end(payload?: unknown) {
			if (payload !== undefined) response.body = payload;
			response.ended = true;
			return httpResponse;
		},
		// What the trigger reads of Express's response to learn how n8n answered (acknowledgement.ts).
		get statusCode() {
			return response.statusCode ?? 200;
		},
		get writableEnded() {
			return response.ended;
		},
		once(event: string, listener: () => void) {
			events.once(event, listener);
			return httpResponse;
		},
	};
	const events = new EventEmitter();
	/** n8n's own answer after webhook() returned (run created: 200; n8n failed to create it: 500). */
	const answer = (statusCode: number) => {
		if (!response.ended) {
			response.statusCode = statusCode;
			response.ended = true;
		}
		events.emit('finish');
	};
	const additionalData = additionalDataFor(setup, {
		httpRequest,
		httpResponse,
	} as unknown as Partial<IWorkflowExecuteAdditionalData>);
	const webhookData = webhookDataFor(workflow, node, setup);
	webhookData.workflowExecuteAdditionalData = additionalData;
	const context = new WebhookContext(workflow, node, additionalData, setup.mode ?? 'webhook', webhookData, [], null);
	return { context, response, answer };
}

/** Runs the credential's own test request (as n8n's "Test" button would) with these values. */
export async function testCredential(credentials: TestCredentials): Promise<{ statusCode: number }> {
	const probe: INodeType = {
		description: {
			displayName: 'Credential probe',
			name: 'credentialProbe',
			group: [],
			version: 1,
			description: '',
			defaults: { name: 'Credential probe' },
			inputs: [],
			outputs: [],
			properties: [],
		},
	};
	const { workflow, node } = makeWorkflow(probe, { parameters: {}, credentials });
	const values = { ...credentials } as unknown as ICredentialDataDecryptedObject;
	const request = credentialType.test!.request;
	const baseURL = workflow.expression.getSimpleParameterValue(node, request.baseURL, 'internal', {
		$credentials: values,
	} as never);
	const options = await authenticate(workflow, node, values, credentialType, {
		url: `${String(baseURL)}${request.url}`,
		method: request.method ?? 'GET',
	});
	const response = await fetch(options.url, {
		method: options.method,
		headers: options.headers as Record<string, string>,
	});
	return { statusCode: response.status };
}
