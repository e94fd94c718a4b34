/**
 * Recurring payouts in a real n8n 2.40.7 against the sandbox (issue 36): Example 8 (monthly payroll,
 * keyed per payee AND month) as shipped, run twice in one month: one order per payee, the re-run quiet
 * and paying nothing new. Then the trap it avoids, the same workflow keyed by payee alone: the first
 * month's orders funded and delivered, the sandbox's clock moved a month on (its Date header tells the
 * node), the next run is not a green run with unpaid payees: every payee lands on the error output
 * (or, without it, the execution fails) naming the key, the month-old order and the fix, and nothing
 * is paid twice.
 */
import { PAYMENT_ORDER_STATUSES } from '../../nodes/shared/paymentOrderStatus';
import { loadExample, withOutbox } from '../../harness/examples';
import { nodeItems } from '../../harness/executions';
import { N8nInstance, type WorkflowInput } from '../../harness/n8nProcess';
import { sandboxCredential } from '../../harness/sandbox';
import { startSandboxStage, stopAll, type SandboxStage } from '../../harness/stage';
import { waitFor } from '../../harness/wait';

jest.setTimeout(300_000);

const DAY = 86_400;

describe('recurring payouts in a real n8n', () => {
	let stage: SandboxStage;
	let n8n: N8nInstance;
	let payroll: WorkflowInput;
	let trap: WorkflowInput;
	let trapNoErrorOutput: WorkflowInput;

	/** Example 8 as shipped, its Where messages go set to this test's sandbox (not the default port 4010). */
	const shipped = (): WorkflowInput => withOutbox(loadExample('8-monthly-payroll.json'), stage.sandbox.mainUrl);
	/** Example 8 as a person would first write it: the Business Key is the payee alone (no month). */
	const keyedByPayee = (id: string, errorOutput: boolean): WorkflowInput => {
		const workflow = shipped();
		workflow.id = id;
		workflow.name = `Payroll keyed by payee (${id})`;
		for (const node of workflow.nodes) {
			const parameters = node.parameters as Record<string, unknown>;
			if (node.name === "Check the month's batch") parameters.businessKey = '={{ $json.employeeId }}';
			if (node.name === 'Pay the month') {
				parameters.idempotencyKey = '={{ $json.employeeId }}';
				if (!errorOutput) delete (node as { onError?: string }).onError;
			}
		}
		return workflow;
	};
	const outbox = async (channel: string) => ((await stage.operator.call('GET', `outbox?channel=${channel}`)).messages as any[]).map((m) => m.body);
	const advance = (seconds: number) => stage.operator.call('POST', 'clock/advance', { seconds });
	const status = async (id: string) => (await stage.operator.api('GET', `/payment-orders/${id}`)).status as string;
	/** Orders of the account by idempotency key (every status). */
	const ordersByKey = async () => {
		const { paymentOrders } = await stage.operator.api('GET', '/payment-orders?limit=1000&status=' + PAYMENT_ORDER_STATUSES.join('&status='));
		const counts: Record<string, number> = {};
		for (const o of paymentOrders as any[]) counts[o.idempotencyKey] = (counts[o.idempotencyKey] ?? 0) + 1;
		return counts;
	};
	async function run(workflow: WorkflowInput) {
		const mark = await stage.operator.mark();
		const result = await n8n.execute(workflow.id!);
		const posts = (await stage.operator.requests(mark)).filter((r) => r.method === 'POST' && r.path === '/api/v1/payment');
		return { result, posts };
	}

	beforeAll(async () => {
		stage = await startSandboxStage({ allowLoopbackWebhooks: true });
		payroll = shipped();
		trap = keyedByPayee('exPayrollTrap01', true);
		trapNoErrorOutput = keyedByPayee('exPayrollTrap02', false);
		n8n = await N8nInstance.create();
		await n8n.importCredential(sandboxCredential(stage.sandbox));
		await n8n.importWorkflows([payroll, trap, trapNoErrorOutput]);
	});

	afterAll(() => stopAll(n8n, stage?.sandbox));

	test('Example 8 as shipped: one order per payee for the month; run again in the same month, quiet, nothing paid twice', async () => {
		const first = await run(payroll);
		expect(first.result.code).toBe(0);
		const paid = nodeItems(first.result.run!.data, 'Pay the month') as any[];
		expect(paid.map((o) => o.created)).toEqual([true, true, true]);
		const month = /^EMP-00[123]-\d{4}-\d{2}$/;
		expect(paid.every((o) => month.test(o.idempotencyKey))).toBe(true);
		expect(nodeItems(first.result.run!.data, "Check the month's batch")[0]).toMatchObject({ ok: true, keysChecked: 3, keysUsed: 0 });
		const [report] = await outbox('payroll');
		expect(report.payslips).toHaveLength(3);
		expect(report.payslips.every((p: any) => p.createdThisRun === true && p.status === 'AWAITING_FUNDS' && typeof p.fundTo === 'string')).toBe(true);

		const again = await run(payroll);
		expect(again.result.code).toBe(0);
		expect(again.result.run!.status).toBe('success');
		const found = nodeItems(again.result.run!.data, 'Pay the month') as any[];
		expect(found.map((o) => [o.paymentOrderId, o.created])).toEqual(paid.map((o) => [o.paymentOrderId, false]));
		// A found order that awaits funds still says where to pay it, and that no funds were seen yet.
		expect(found.every((o) => o.depositAddress === paid.find((p) => p.paymentOrderId === o.paymentOrderId).depositAddress && o.fundsSeen === false)).toBe(true);
		expect(nodeItems(again.result.run!.data, "Check the month's batch")[0]).toMatchObject({ keysUsed: 3 });
		expect(await outbox('payroll-unpaid')).toEqual([]);
		const counts = await ordersByKey();
		expect(paid.map((o) => counts[o.idempotencyKey])).toEqual([1, 1, 1]);
	});

	test('keyed by payee alone, the next month is not a green run with unpaid payees: each payee fails loudly, nothing is paid twice', async () => {
		const first = await run(trap);
		expect(first.result.code).toBe(0);
		const orders = nodeItems(first.result.run!.data, 'Pay the month') as any[];
		expect(orders.map((o) => [o.idempotencyKey, o.created])).toEqual([
			['EMP-001', true],
			['EMP-002', true],
			['EMP-003', true],
		]);
		// The month is paid: funded, netted and delivered.
		for (const order of orders) await stage.operator.deposit(order.paymentOrderId, order.amountUsd);
		await waitFor(
			async () => (await advance(60), (await Promise.all(orders.map((o) => status(o.paymentOrderId)))).every((s) => s === 'FUNDED')),
			60_000,
			'the orders FUNDED',
			50,
		);
		await stage.operator.call('POST', 'netting/close', {});
		await waitFor(
			async () => (await advance(60), (await Promise.all(orders.map((o) => status(o.paymentOrderId)))).every((s) => s === 'DISTRIBUTED')),
			60_000,
			'the orders DISTRIBUTED',
			50,
		);
		// A month on: the service's clock (the sandbox's Date header) is 31 days later than the first run.
		await advance(31 * DAY);

		const next = await run(trap);
		const checked = nodeItems(next.result.run!.data, "Check the month's batch")[0] as any;
		expect(checked).toMatchObject({ keysUsed: 3 });
		expect(checked.usedKeys.map((u: any) => [u.businessKey, u.status, u.keyState])).toEqual([
			['EMP-001', 'DISTRIBUTED', 'live'],
			['EMP-002', 'DISTRIBUTED', 'live'],
			['EMP-003', 'DISTRIBUTED', 'live'],
		]);
		// No payee is reported paid: every one is on the error output, naming the key, the order and the fix.
		expect(nodeItems(next.result.run!.data, 'Pay the month', 0)).toEqual([]);
		const unpaid = nodeItems(next.result.run!.data, 'Pay the month', 1) as any[];
		expect(unpaid.map((u) => u.employeeId)).toEqual(['EMP-001', 'EMP-002', 'EMP-003']);
		unpaid.forEach((u, n) =>
			expect(u.error).toMatch(
				new RegExp(
					`^Business Key "EMP-00${n + 1}" was already used 31 days before this execution began, by payment order ${orders[n].paymentOrderId} \\(made .*, status DISTRIBUTED\\)`,
				),
			),
		);
		const said = await outbox('payroll-unpaid');
		expect(said.map((m: any) => m.employeeId)).toEqual(['EMP-001', 'EMP-002', 'EMP-003']);
		expect(said.every((m: any) => /already used 31 days before/.test(m.error))).toBe(true);
		expect(next.posts.map((r) => r.status)).toEqual([409, 409, 409]);

		// Without the error output, the execution itself fails with the same words.
		const stopped = await run(trapNoErrorOutput);
		expect(stopped.result.code).toBe(1);
		expect(stopped.result.stdout).toMatch(/Business Key "EMP-00\d" was already used 31 days before this execution began/);
		expect(stopped.posts.every((r) => r.status === 409)).toBe(true);
		const counts = await ordersByKey();
		expect([counts['EMP-001'], counts['EMP-002'], counts['EMP-003']]).toEqual([1, 1, 1]);
	});
});
