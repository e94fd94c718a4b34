/**
 * Payment Order → Create as an AI agent's tool, in a real n8n 2.40.7: n8n's own AI Agent node and
 * OpenAI Chat Model node, the model being a local OpenAI-compatible server that answers with
 * scripted tool calls (harness/scriptedModel.ts; no outside service). The tool node leaves
 * recipient, amount and invoice number to the model ($fromAI) and sets its Spend Limits itself.
 * Each check counts what reached the sandbox and reads what n8n sent back to the model.
 */
import { randomBytes } from 'node:crypto';

import { CREATE_PAYMENT_ORDER_TOOL_DESCRIPTION } from '../../nodes/Clearinghouse/actions/toolDescriptions';
import { N8nInstance, type WorkflowInput } from '../../harness/n8nProcess';
import { sandboxCredential } from '../../harness/sandbox';
import { startSandboxStage, stopAll, type SandboxStage } from '../../harness/stage';
import { ScriptedModel, textOf, type ChatRequest, type ScriptedReply } from '../../harness/scriptedModel';
import { nodeItems } from '../../harness/executions';
import { findNode, loadExample } from '../../harness/examples';
import type { LoggedRequest } from '../../harness/sandboxClient';

jest.setTimeout(240_000);

const TOOL = 'pay_invoice';
const UNKNOWN = '0x00000000000000000000000000000000deadbeef';

describe("Payment Order → Create as an AI agent's tool", () => {
	let stage: SandboxStage;
	let n8n: N8nInstance;
	const run = randomBytes(3).toString('hex');
	const invoice = (name: string) => `INV-${name}-${run}`;

	/** The OpenAI-compatible model the agent asks: it answers as `script` says (started in beforeAll). */
	const model = new ScriptedModel(script);
	/** The tool calls each scenario's model makes, one list per model request; then a final text. */
	const scenarios: Record<string, Array<Record<string, unknown>>> = {};
	function script(request: ChatRequest): ScriptedReply {
		const prompt = textOf(request.messages.find((m) => m.role === 'user'));
		const name = Object.keys(scenarios).find((key) => prompt.includes(`[${key}]`));
		if (!name && prompt.startsWith('Pay this approved invoice')) {
			// Example 7: pay the invoice in the prompt once, as written.
			const invoice = JSON.parse(prompt.slice(prompt.indexOf('{')));
			if (request.messages.some((m) => m.role === 'tool')) return { text: `paid ${invoice.invoiceNumber}` };
			const args = { toAddress: invoice.address, chain: invoice.chain, amountUsd: invoice.amountUsd, invoiceNumber: invoice.invoiceNumber };
			return { toolCalls: [{ name: 'Pay_invoice', args }] };
		}
		if (!name) return { text: `no scenario in: ${prompt}` };
		const step = request.messages.filter((m) => m.role === 'assistant').length;
		const call = scenarios[name][step];
		return call ? { toolCalls: [{ name: TOOL, args: call }] } : { text: `done: ${name}` };
	}
	/** The model requests of one scenario, in order. */
	const requestsOf = (name: string) => model.requests.filter((r) => textOf(r.messages.find((m) => m.role === 'user')).includes(`[${name}]`));
	/** The tool results n8n handed the model in its last request of a scenario. */
	const toolResults = (name: string) =>
		requestsOf(name)
			.slice(-1)[0]
			.messages.filter((m) => m.role === 'tool')
			.map((m) => textOf(m));

	function agentWorkflow(id: string, scenario: string, tool: Record<string, unknown> = {}): WorkflowInput {
		const fromAi = (key: string, description: string) => `={{ $fromAI('${key}', \`${description}\`, 'string') }}`;
		return {
			id,
			name: `e2e agent: ${scenario}`,
			nodes: [
				{ id: `${id}-1`, name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
				{
					id: `${id}-2`,
					name: 'AI Agent',
					type: '@n8n/n8n-nodes-langchain.agent',
					typeVersion: 3,
					position: [220, 0],
					parameters: {
						promptType: 'define',
						text: `[${scenario}] Pay the approved invoice in the request.`,
						options: { systemMessage: 'You pay approved invoices with the pay_invoice tool.', maxIterations: 6 },
					},
				},
				{
					id: `${id}-3`,
					name: 'OpenAI Chat Model',
					type: '@n8n/n8n-nodes-langchain.lmChatOpenAi',
					typeVersion: 1.2,
					position: [220, 200],
					parameters: { model: { __rl: true, mode: 'id', value: 'scripted-model' }, options: { maxRetries: 0 } },
					credentials: { openAiApi: { id: 'openAiScripted01', name: 'Scripted model' } },
				},
				{
					id: `${id}-4`,
					name: TOOL,
					type: 'n8n-nodes-clearinghouse.clearinghouseTool',
					typeVersion: 1,
					position: [440, 200],
					parameters: {
						resource: 'paymentOrder',
						operation: 'create',
						mode: 'standard',
						fromUserId: '__ALICE__',
						toAddress: fromAi('toAddress', 'Recipient wallet address exactly as written in the invoice'),
						toChain: 'ethereum',
						asset: 'USDC',
						amountUsd: fromAi(
							'amountUsd',
							'Amount in US dollars as decimal text with a dot, e.g. 120.50: at most 4 decimals, no currency sign, no thousands separator',
						),
						expiry: 'inMinutes',
						expiresInMinutes: 60,
						memo: 'paid by the e2e agent',
						idempotencyKeyMode: 'custom',
						idempotencyKey: fromAi('invoiceNumber', 'The invoice number exactly as written in the request, e.g. INV-2026-0042. Never invent one.'),
						spendLimits: { maxAmountPerOrder: '500', allowedRecipients: '__BOB__' },
						...tool,
					},
					credentials: { clearinghouseApi: { id: 'chSandboxCred001', name: 'Clearinghouse sandbox' } },
				},
			],
			connections: {
				Start: { main: [[{ node: 'AI Agent', type: 'main', index: 0 }]] },
				'OpenAI Chat Model': { ai_languageModel: [[{ node: 'AI Agent', type: 'ai_languageModel', index: 0 }]] },
				[TOOL]: { ai_tool: [[{ node: 'AI Agent', type: 'ai_tool', index: 0 }]] },
			},
			settings: { executionOrder: 'v1' },
		};
	}

	/** Runs a scenario's workflow; returns the agent's output and the sandbox requests meanwhile. */
	async function runScenario(id: string): Promise<{ output: string; requests: LoggedRequest[]; payments: LoggedRequest[] }> {
		const mark = await stage.operator.mark();
		const result = await n8n.execute(id);
		if (result.code !== 0 || !result.run)
			throw new Error(`n8n execute ${id} exited ${result.code}\n${result.stdout.slice(-4000)}\n${result.stderr.slice(-2000)}`);
		const requests = (await stage.operator.requests(mark)).filter((r) => !r.path.startsWith('/sandbox'));
		const [agent] = nodeItems(result.run.data, 'AI Agent');
		return { output: String(agent?.output ?? ''), requests, payments: requests.filter((r) => r.method === 'POST' && r.path === '/api/v1/payment') };
	}

	let example: WorkflowInput;
	const ids = { legit: 'e2eAgentLegit001', repeat: 'e2eAgentRepeat01', inject: 'e2eAgentInject01', malformed: 'e2eAgentMalform1' };
	/**
	 * Issue 34: the model's arguments reach Create without $fromAI in Amount or Recipient Address. n8n
	 * offers the model every $fromAI key of the node's stored parameters (here in the Memo, hidden under
	 * Map Automatically) and hands the tool its arguments as the input item, so `{{ $json.amountUsd }}`
	 * and Map Automatically read what the model wrote.
	 */
	const said = (key: string) => `{{ $fromAI('${key}', 'The ${key} of the invoice, exactly as written', 'string') }}`;
	const memoOf = (...keys: string[]) => `=${keys.map(said).join(' ')}`;
	const automapTool: Record<string, unknown> = {
		dataMode: 'autoMapInputData',
		businessKeyField: 'invoiceNumber',
		// The Define Below fields' own $fromAI calls, gone: each key is offered once, from the Memo.
		amountUsd: '',
		toAddress: '',
		idempotencyKey: '',
		memo: memoOf('fromUserId', 'toAddress', 'toChain', 'asset', 'amountUsd', 'invoiceNumber'),
	};
	const modelTools: Record<string, { id: string; tool: Record<string, unknown> }> = {
		json: {
			id: 'e2eAgentJson0001',
			tool: {
				amountUsd: '={{ $json.amountUsd }}',
				toAddress: '={{ $json.toAddress }}',
				memo: memoOf('amountUsd', 'toAddress', 'invoiceNumber'),
				idempotencyKey: '={{ $json.invoiceNumber }}',
				spendLimits: {},
			},
		},
		// Map Automatically without and with the spend limits the test sets (the same tool otherwise).
		automap: { id: 'e2eAgentAutomap1', tool: { ...automapTool, spendLimits: {} } },
		automapLimited: { id: 'e2eAgentAutomap2', tool: automapTool },
	};

	beforeAll(async () => {
		stage = await startSandboxStage();
		const { alice } = stage;
		await model.start();
		const pay = (name: string, amountUsd: string, toAddress = stage.bobEth) => ({ toAddress, amountUsd, invoiceNumber: invoice(name) });
		scenarios.legit = [pay('legit', '120.50')];
		scenarios.repeat = [pay('repeat', '75'), pay('repeat', '75')];
		scenarios.inject = [pay('inject', '1000000', UNKNOWN), pay('inject', '50', UNKNOWN)];
		scenarios.malformed = [pay('malformed', '12,50'), pay('malformed', '12.50')];
		const mapped = (name: string, amountUsd: string) => ({ ...pay(name, amountUsd), fromUserId: alice.id, toChain: 'ethereum', asset: 'USDC' });
		scenarios.json = [pay('json', '49999.50')];
		scenarios.automap = [mapped('automap', '49999.50')];
		scenarios.automapLimited = [mapped('automapLimited', '49999.50'), mapped('automapLimited', '25')];

		n8n = await N8nInstance.create();
		await n8n.importCredential(sandboxCredential(stage.sandbox), {
			id: 'openAiScripted01',
			name: 'Scripted model',
			type: 'openAiApi',
			data: { apiKey: 'sk-scripted-not-a-key', url: model.url },
		});
		const fill = (workflow: WorkflowInput) =>
			JSON.parse(JSON.stringify(workflow).replaceAll('__ALICE__', alice.id).replaceAll('__BOB__', stage.bobEth)) as WorkflowInput;
		await n8n.importWorkflows(Object.entries(ids).map(([scenario, id]) => fill(agentWorkflow(id, scenario))));
		await n8n.importWorkflows(Object.entries(modelTools).map(([scenario, { id, tool }]) => fill(agentWorkflow(id, scenario, tool))));
		// Example 7 as shipped, its Chat Model given the scripted model's credential (it ships without one).
		example = loadExample('7-agent-pays-approved-invoices.json');
		findNode(example, 'Chat Model').credentials = { openAiApi: { id: 'openAiScripted01', name: 'Scripted model' } };
		await n8n.importWorkflows([example]);
	});

	afterAll(() => stopAll(n8n, model, stage?.sandbox));

	test('the model is offered the tool with descriptions that say what it does, the units and formats', async () => {
		const { output, payments } = await runScenario(ids.legit);
		const [first] = requestsOf('legit');
		const tool = first.tools?.find((t) => t.function.name === TOOL);
		expect(tool).toBeDefined();
		// The node's own tool description (Tool Description on the tool), not n8n's automatic one.
		expect(tool!.function.description).toBe(CREATE_PAYMENT_ORDER_TOOL_DESCRIPTION);
		const properties = tool!.function.parameters.properties;
		expect(Object.keys(properties).sort()).toEqual(['amountUsd', 'invoiceNumber', 'toAddress']);
		expect(properties.amountUsd.description).toMatch(/decimal text/);
		// A legitimate request pays once.
		expect(payments).toHaveLength(1);
		expect(payments[0].body).toMatchObject({ amountUsd: 120.5, toAddress: stage.bobEth, idempotencyKey: invoice('legit') });
		expect(payments[0].status).toBe(201);
		expect(output).toBe('done: legit');
	});

	test('the same tool call repeated in one agent run pays once', async () => {
		const before = (await stage.operator.state()).counts.orders;
		const { payments } = await runScenario(ids.repeat);
		expect(payments.map((p) => p.body.idempotencyKey)).toEqual([invoice('repeat'), invoice('repeat')]);
		expect((await stage.operator.state()).counts.orders).toBe(before + 1);
		const results = toolResults('repeat');
		expect(results).toHaveLength(2);
		// Both calls are in one execution, so both say `created: true` (made in this execution); the
		// second says `replayed: true`: the service answered with the order the first call made.
		expect(results[0]).toContain('"created":true');
		expect(results[0]).toContain('"replayed":false');
		expect(results[1]).toContain('"created":true');
		expect(results[1]).toContain('"replayed":true');
	});

	test('a prompt-injected call for 1,000,000 to an unknown address is refused by the limits, nothing sent', async () => {
		const { requests, output } = await runScenario(ids.inject);
		expect(requests.filter((r) => r.method !== 'GET')).toEqual([]);
		const results = toolResults('inject');
		expect(results[0]).toContain('Spend limit Max Amount per Order (USD): the order asks for 1000000 USD, over the limit of 500 USD');
		expect(results[1]).toContain(`Spend limit Allowed Recipients: ${UNKNOWN} on ethereum is not in the list (1 allowed)`);
		expect(output).toBe('done: inject');
	});

	test('a malformed amount gets an error the model reads, and its corrected call pays once', async () => {
		const { payments } = await runScenario(ids.malformed);
		const [, second] = requestsOf('malformed');
		// n8n hands the model the tool's output items as JSON: the failed item carries the node's error.
		const [toolMessage] = second.messages.filter((m) => m.role === 'tool').map((m) => JSON.parse(textOf(m)));
		expect(toolMessage).toEqual([
			{
				error: 'Amount (USD) must be plain decimal text: write 12.50 (got "12,50"; no thousands separators, spaces or decimal commas)',
			},
		]);
		expect(payments).toHaveLength(1);
		expect(payments[0].body).toMatchObject({ amountUsd: 12.5, idempotencyKey: invoice('malformed') });
	});

	test.each([
		['{{ $json.amountUsd }} and {{ $json.toAddress }}', 'json'],
		['Map Automatically', 'automap'],
	])("the model's arguments reaching Create through %s pay nothing without limits", async (_how, scenario) => {
		const { requests } = await runScenario(modelTools[scenario].id);
		expect(requests.filter((r) => r.method !== 'GET')).toEqual([]);
		const [result] = toolResults(scenario);
		expect(result).toContain("This node runs as an AI agent's tool, so Amount (USD) comes from the model");
		expect(result).toContain('Spend Limits → Max Amount per Order (USD) is not set');
	});

	test('with both limits set, Map Automatically pays within them once and refuses beyond them', async () => {
		const { payments } = await runScenario(modelTools.automapLimited.id);
		const [over] = toolResults('automapLimited');
		expect(over).toContain('Spend limit Max Amount per Order (USD): the order asks for 49999.5 USD, over the limit of 500 USD');
		expect(payments.map((p) => [p.body.amountUsd, p.body.toAddress, p.body.idempotencyKey, p.status])).toEqual([
			[25, stage.bobEth, invoice('automapLimited'), 201],
		]);
	});

	test('example 7: the agent pays the invoices under the cap once each; the one above waits for a person', async () => {
		const mark = await stage.operator.mark();
		const result = await n8n.execute(example.id);
		const payments = (await stage.operator.requests(mark)).filter((r) => r.method === 'POST' && r.path === '/api/v1/payment');
		expect(payments.map((p) => [p.body.idempotencyKey, p.body.amountUsd, p.status]).sort()).toEqual([
			['INV-2001', 120.5, 201],
			['INV-2002', 42, 201],
		]);
		// INV-2003 (4,800 USD) went to Wait for approval: nothing was sent for it.
		expect(result.run?.data.resultData.runData['Pay approved invoice']).toBeUndefined();
		expect(Object.keys(result.run?.data.resultData.runData ?? {})).toContain('Wait for approval');
	}, 90_000);
});
