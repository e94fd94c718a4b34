/**
 * The no-code walk in a real browser (Debian's chromium over the DevTools protocol),
 * against what `npm start` sets up: the sandbox (demo seed), a local n8n with the packed package, the
 * sandbox credential and the examples imported as shipped. From there only clicks and typing:
 *   create the owner account, publish Examples 2 and 3, change Example 1's payees in its Payees node
 *   (Edit Fields: one amount changed, a payee added on a chain the service does not support) and run
 *   it with the editor's execute button (three orders; INV-1004 and INV-1005 refused on the error
 *   branch, whose panel shows the errors in the panel's words: the field's label and the valid
 *   chains), fund and settle its orders in the sandbox console (which says what each netting close
 *   did and the surplus of the overfunded order), and see the trigger workflows fire in n8n's
 *   executions list and the console's outbox.
 * The test reads the sandbox and n8n only to assert (and n8n's saved executions to know a run is done). A
 * second test clicks the console buttons the walk does not need (activate, expire, fail a distribution, replay
 * a delivery that ran, which the trigger then drops as a duplicate, inject a fault). A third pays carol, a
 * user of the demo subaccount, from Example 1: refused with the fix that works, paid once that fix is followed
 * in the panel (Sender User ID, Additional Fields → Subaccount ID), and not paid again by a re-run.
 * Screenshots are kept in .e2e/screenshots/ (git-ignored) as test artefacts, with every webhook
 * attempt the sandbox made (walk-webhook-attempts.json: what n8n answered and how long it took).
 *
 * The triggers confirm each event with the API (the default) and emit the order as it is then: an
 * event that n8n handles after its order has moved on comes out as the newer status, or is dropped as
 * stale. So the walk waits for each "is funded" line before it settles, as a user watching the
 * console would; settling at once would leave no "funded" line for an order whose FUNDED delivery
 * was still queued (seen on a loaded machine).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import type { Browser } from '../../harness/browser';
import { exampleFiles, findNode, loadExample, withOutbox } from '../../harness/examples';
import type { N8nInstance } from '../../harness/n8nProcess';
import { sandboxCredential } from '../../harness/sandbox';
import { stopAll, type SandboxStage } from '../../harness/stage';
import { createdColumn, editorPerson, locatorInput, outputShown, param, type EditorPerson } from './editor';
import { describeBrowser, SCREENSHOTS, startBrowserStage } from './support';

jest.setTimeout(600_000);

const js = (value: unknown) => JSON.stringify(value);

describeBrowser('the no-code walk in a real browser', () => {
	let stage: SandboxStage;
	let n8n: N8nInstance;
	let browser: Browser;
	// What the person clicks is counted, and not read here.
	let person: EditorPerson;
	let example1Id: string;
	const shot = (name: string) => browser.screenshot(join(SCREENSHOTS, `walk-${name}.png`));

	beforeAll(async () => {
		// As `npm start` does, except for ports; deposits confirm in a few scaled seconds. The delivery
		// timeout stays the service's real one: scaled down to 1 s, a busy n8n answered too late and
		// every event was delivered again and again.
		({ stage, n8n, browser } = await startBrowserStage(
			{ allowLoopbackWebhooks: true, seed: 'demo', timeScale: 10, attemptTimeoutMs: 10_000 },
			async (n8n, stage) => {
				await n8n.importCredential(sandboxCredential(stage.sandbox));
				// The examples' Where messages go names the default sandbox (port 4010); this one listens elsewhere, as npm start's may.
				const ids = await n8n.importWorkflows(exampleFiles().map((file) => withOutbox(loadExample(file), stage.sandbox.mainUrl)));
				example1Id = ids[exampleFiles().indexOf('1-scheduled-batch-payouts.json')];
			},
		));
		person = editorPerson(browser, n8n);
	});
	afterAll(async () => {
		await saveAttempts().catch((error: Error) => console.log(`walk: webhook attempts not saved: ${error.message}`));
		await stopAll(browser, n8n, stage?.sandbox);
	});

	/**
	 * Every webhook attempt the sandbox made (no headers, no body: the event, what n8n answered and how
	 * long it took), kept beside the screenshots, and a one-line summary in the test output.
	 */
	async function saveAttempts() {
		if (!stage) return;
		const { attempts } = await stage.operator.call<{ attempts: any[] }>('GET', 'webhooks/attempts');
		const rows = attempts.map((a) => {
			const event = JSON.parse(a.body);
			const order = event.data?.payment_order;
			return {
				seq: a.seq,
				at: a.at,
				endpointId: a.endpointId,
				deliveryId: a.deliveryId,
				eventId: event.id,
				answer: a.response,
				orderStatus: order?.status,
				orderVersion: order?.version,
				memo: order?.memo,
				statusCode: a.statusCode,
				error: a.error,
				durationMs: a.durationMs,
			};
		});
		mkdirSync(SCREENSHOTS, { recursive: true });
		writeFileSync(join(SCREENSHOTS, 'walk-webhook-attempts.json'), JSON.stringify(rows, null, 1));
		const perDelivery = new Map<string, number>();
		for (const r of rows) if (r.deliveryId) perDelivery.set(r.deliveryId, (perDelivery.get(r.deliveryId) ?? 0) + 1);
		const answers: Record<string, number> = {};
		for (const r of rows) answers[r.error ?? String(r.statusCode)] = (answers[r.error ?? String(r.statusCode)] ?? 0) + 1;
		const times = rows.map((r) => r.durationMs).sort((a, b) => a - b);
		console.log(
			`walk: ${rows.length} webhook attempts for ${perDelivery.size} deliveries, ${[...perDelivery.values()].filter((n) => n > 1).length} retried (most attempts ${Math.max(0, ...perDelivery.values())}); ` +
				`answers ${JSON.stringify(answers)}; time to answer median ${times[Math.floor(times.length / 2)] ?? 0} ms, slowest ${times.at(-1) ?? 0} ms`,
		);
	}

	/** Opens a workflow from the editor's overview list, by a part of its name. */
	async function openWorkflow(name: string) {
		await browser.goto(`${n8n.baseUrl}/home/workflows`);
		await browser.clickWhere(
			`the "${name}" card`,
			// "Example 1:", not "Example 1" (which "Example 10: …" contains too).
			`[...document.querySelectorAll('[data-test-id="workflow-card-name"]')].find((e) => e.textContent.trim().startsWith(${js(`${name}:`)}))`,
			120_000,
		);
		await browser.waitFor(
			`the canvas of ${name}`,
			`location.pathname.startsWith('/workflow/') && document.querySelector('[data-test-id="execute-workflow-button"]')`,
			120_000,
		);
	}

	// Console helpers: rows by memo, their status, and what the page shows when a wait times out.
	const row = (memo: string) => `[...document.querySelectorAll('#orders tbody tr')].find((r) => r.children[1]?.textContent === ${js(memo)})`;
	const statusOf = (memo: string) => `${row(memo)}?.querySelector('td.status')?.textContent`;
	const shown = `({ message: document.querySelector('#message')?.textContent, orders: [...document.querySelectorAll('#orders tbody tr')].map((r) => r.textContent.replace(/\\s+/g, ' ')) })`;
	// The console's outbox: message texts of a channel; Slack lines about one memo that say `what`.
	const outboxRows = (channel: string) =>
		`[...document.querySelectorAll('#outbox tbody tr')].filter((r) => r.children[1]?.textContent === ${js(channel)}).map((r) => r.children[3].textContent)`;
	const slackLines = (memoExpression: string, what: string) =>
		`${outboxRows('slack')}.filter((t) => t.includes('(' + ${memoExpression} + ')') && t.includes(${js(what)}))`;
	const outboxShown = `({ outbox: [...document.querySelectorAll('#outbox tbody tr')].map((r) => r.textContent), deliveries: [...document.querySelectorAll('#deliveries tbody tr')].map((r) => r.textContent) })`;
	async function fund(memo: string, amount: 'full' | 'partial' | 'over', action: 'fund-attribute' | 'fund-hash') {
		const id = await browser.waitFor<string>(`the order ${memo}`, `${row(memo)}?.dataset.order`, 60_000, shown);
		const inRow = `#orders tr[data-order="${id}"]`;
		await browser.select(`${inRow} select[data-field="amount"]`, amount);
		const before = await browser.evaluate<string>(`document.querySelector('#message').textContent`);
		await browser.click(`${inRow} button[data-action="${action}"]`);
		await browser.waitFor(
			`the console's answer to ${action} on ${memo}`,
			`(() => { const m = document.querySelector('#message'); return m.textContent !== ${js(before)} && m.textContent.includes(${js(action === 'fund-hash' ? 'Paste this hash' : 'attributed')}); })()`,
			60_000,
			shown,
		);
		expect(await browser.evaluate(`document.querySelector('#message').className`)).toBe('');
		return id;
	}

	const memos = ['INV-1001', 'INV-1002', 'INV-1003'];
	/**
	 * What the user pastes into Example 1's Payees node: the shipped rows with INV-1003 paying 275.00
	 * instead of 310.25, and one more payee on a chain the service does not support.
	 */
	function editedPayees(): string {
		const { jsonOutput } = findNode(loadExample('1-scheduled-batch-payouts.json'), 'Payees').parameters as { jsonOutput: string };
		const payees = JSON.parse(jsonOutput) as { payees: Array<Record<string, string>> };
		const inv1003 = payees.payees.find((p) => p.reference === 'INV-1003')!;
		expect(inv1003.amountUsd).toBe('310.25');
		inv1003.amountUsd = '275.00';
		payees.payees.push({
			payee: 'Dave (tron)',
			chain: 'tron',
			address: 'TN3W4H6rK2ce4vX9YnFQHwKENnHjoxb3m9',
			asset: 'USDT',
			amountUsd: '12.00',
			reference: 'INV-1005',
		});
		return JSON.stringify(payees);
	}

	test('a user publishes Examples 2 and 3, runs Example 1, settles its orders in the console and sees the triggers fire', async () => {
		const started = Date.now();
		const took = (what: string) => console.log(`walk: ${what} after ${Math.round((Date.now() - started) / 1000)} s`);

		// 0. First visit: n8n asks for the local owner account.
		await browser.setUpOwner(n8n.baseUrl, 'Sandbox', 'Sandbox-owner-1', () => shot('0-owner-setup'));
		took('owner set up');

		// 1. Publish Examples 2 and 3 as imported (no Slack or Google credential).
		for (const [name, file] of [
			['Example 2', '1-example-2-published'],
			['Example 3', '2-example-3-published'],
		]) {
			await openWorkflow(name);
			await browser.click('[data-test-id="workflow-open-publish-modal-button"]');
			await browser.click('[data-test-id="workflow-publish-button"]');
			await browser.waitFor(
				`${name} published`,
				`document.querySelector('[data-test-id="workflow-active-version-indicator"]')?.parentElement.textContent.includes('Published')`,
				120_000,
			);
			await shot(file);
		}
		// Each published trigger registered its endpoint with the sandbox.
		await waitUntil('two enabled webhook endpoints', async () => (await overview()).endpoints.filter((e: any) => e.status === 'ENABLED').length === 2);
		took('Examples 2 and 3 published');

		// 2. Change Example 1's payees in its Payees node (Edit Fields, JSON): select all, paste the new rows.
		await openWorkflow('Example 1');
		await editPayees(editedPayees(), `t.includes('INV-1005') && t.includes('275.00') && !t.includes('310.25')`, '2b-payees-edited');

		// Run Example 1 from its manual trigger with the execute button.
		await runExample1();
		await browser.waitFor(
			'the run to finish (the summary sent once to the outbox, each of the two refused payees once)',
			`!document.querySelector('[data-test-id="stop-execution-button"]') && [['Send summary', '1 item'], ['Send failed payees', '2 items']].every(([name, count]) => {
				const el = document.querySelector('[data-test-id="canvas-node"][data-node-name="' + name + '"]');
				return el && el.textContent.includes(count) && el.querySelector('[data-test-id="canvas-node-status-success"]'); })`,
			180_000,
			`[...document.querySelectorAll('[data-test-id="canvas-node"]')].map((e) => e.textContent)`,
		);
		await shot('3-example-1-run');
		// The refused payees, with their rows and the reasons in the panel's words, on the error branch: the
		// unregistered recipient, and the unsupported chain named by its label (Chain) with the valid chains.
		await person.openNode('Failed payees');
		await browser.waitFor(
			'the refused payees in the output panel',
			`(() => { const t = document.body.innerText; return t.includes('INV-1004') && /is not an ACTIVE wallet/.test(t) && t.includes('INV-1005')
				&& t.includes('Chain "tron" is not supported. Valid chains: Base (base), Ethereum (ethereum), Solana (solana)'); })()`,
			60_000,
			`document.querySelector('[data-test-id="ndv"]')?.innerText.slice(0, 3000)`,
		);
		await shot('4-refused-payees');
		took('Example 1 run');

		// 3. The sandbox console: fund each order from alice's wallet and settle.
		await browser.goto(`${stage.sandbox.mainUrl}/`);
		await browser.waitFor('the console to load', `document.body.dataset.ready === 'true'`);
		for (const memo of memos) await browser.waitFor(`${memo} awaiting funds`, `${statusOf(memo)} === 'AWAITING_FUNDS'`, 60_000, shown);
		expect(await browser.evaluate(`${row('INV-1004')} === undefined && ${row('INV-1005')} === undefined`)).toBe(true);
		// The edited amount is the one ordered.
		expect(await browser.evaluate(`${row('INV-1003')}.children[2].textContent`)).toBe('275 USDC');
		// The console names each endpoint by its workflow (the trigger's description).
		await browser.waitFor(
			'the endpoints named by their workflows',
			`['Example 2', 'Example 3'].every((name) => document.querySelector('#endpoints').textContent.includes(name))`,
			60_000,
			`document.querySelector('#endpoints').textContent`,
		);
		// Every order starts with the order's own sender (alice) as the funding wallet.
		const state = await stage.operator.state();
		const alice = state.users.find((u: any) => u.label === 'alice');
		for (const memo of memos)
			expect(await browser.evaluate(`${row(memo)}.querySelector('select[data-field="sender"]').value`)).toBe(
				`${alice.wallets[0].chain}|${alice.wallets[0].address}`,
			);
		await shot('5-console-orders');

		await fund('INV-1001', 'full', 'fund-attribute');
		// Partial: first the hash to paste into Submit Transactions, then two attributed halves.
		const hashId = await fund('INV-1002', 'partial', 'fund-hash');
		expect(await browser.evaluate(`document.querySelector('#message').textContent`)).toMatch(/Paste this hash into Submit Transactions: \S+/);
		expect(await browser.evaluate(`document.querySelector('#orders tr[data-order="${hashId}"] td.status').textContent`)).toBe('AWAITING_FUNDS');
		await fund('INV-1002', 'partial', 'fund-attribute');
		// The sandbox keeps a partly funded order AWAITING_FUNDS; the Received column shows the half.
		await browser.waitFor(
			'INV-1002 half received',
			`(() => { const r = ${row('INV-1002')}; return Number(r.children[5].textContent) * 2 === Number(r.dataset.amount); })()`,
			120_000,
			shown,
		);
		expect(await browser.evaluate(statusOf('INV-1002'))).toBe('AWAITING_FUNDS');
		await shot('6-partially-funded');
		await fund('INV-1002', 'partial', 'fund-attribute');
		await fund('INV-1003', 'over', 'fund-attribute');
		for (const memo of memos) await browser.waitFor(`${memo} funded`, `${statusOf(memo)} === 'FUNDED'`, 120_000, shown);
		// INV-1003 got 10% more than its amount: the console shows the surplus.
		await browser.waitFor(
			'the surplus of INV-1003',
			`${row('INV-1003')}.querySelector('td.standing').textContent.includes('overfunded by 27.5 USD')`,
			60_000,
			shown,
		);
		await shot('7-funded');
		took('orders funded');
		// Example 2 posts an "is funded" line per order (see the header for why the walk waits for it).
		await browser.waitFor('a Slack "is funded" line per order', `${js(memos)}.every((m) => ${slackLines(`m`, 'is funded')}.length > 0)`, 180_000, outboxShown);
		took('funded lines posted');

		await browser.click('#close-netting');
		for (const memo of memos) await browser.waitFor(`${memo} distributed`, `${statusOf(memo)} === 'DISTRIBUTED'`, 120_000, shown);
		// The close in words, not JSON.
		const closed = await browser.evaluate<string>(`document.querySelector('#message').textContent`);
		expect(closed).toMatch(/^Netting window 1 closed: 3 orders delivered \(/);
		for (const memo of memos) expect(closed).toContain(memo);
		took('orders distributed');

		// 4a. What the triggers "posted": a ledger row and a "was delivered" line per settled order.
		await browser.waitFor(
			'a ledger row per order',
			`${js(memos)}.every((m) => ${outboxRows('ledger')}.filter((t) => t.includes(m)).length > 0)`,
			180_000,
			outboxShown,
		);
		await browser.waitFor(
			'a Slack "was delivered" line per order',
			`${js(memos)}.every((m) => ${slackLines(`m`, 'was delivered')}.length > 0)`,
			180_000,
			outboxShown,
		);
		await shot('8-distributed-and-outbox');
		took('outbox filled');

		// 4b. n8n's executions list: the trigger workflows ran, successfully.
		await browser.goto(`${n8n.baseUrl}/home/workflows`);
		await browser.click('[data-test-id="tab-Executions"]');
		const listed = `[...document.querySelectorAll('[data-test-id="global-execution-list-item"]')].map((r) => r.textContent)`;
		const enough = `(() => { const rows = ${listed}; const ok = (name) => rows.filter((t) => t.includes(name) && t.includes('Success')).length;
			return ok('Example 2') >= 6 && ok('Example 3') >= 3 && !rows.some((t) => /Example [23]/.test(t) && /Error|Crashed/.test(t)); })()`;
		const deadline = Date.now() + 120_000;
		while (!(await browser.evaluate(enough))) {
			if (Date.now() > deadline) throw new Error(`executions list: ${JSON.stringify(await browser.evaluate(listed))}`);
			await new Promise((resolve) => setTimeout(resolve, 5_000));
			// The list refreshes itself; a reload covers a missed refresh on a loaded machine.
			if (!(await browser.evaluate(enough))) await browser.evaluate('location.reload()');
			await browser.waitFor('the executions list', `document.querySelector('[data-test-id="global-execution-list-item"]')`, 60_000);
		}
		await shot('9-executions');
		took('executions listed');

		// What the browser showed agrees with the sandbox.
		const orders = (await overview()).orders.filter((o: any) => memos.includes(o.memo));
		expect(orders.map((o: any) => o.status)).toEqual(['DISTRIBUTED', 'DISTRIBUTED', 'DISTRIBUTED']);
		// Each line once, however often the service delivered an event (retries, two triggers, unordered):
		// read from the sandbox's outbox after the executions list, so a late repeat would show.
		const { messages } = await stage.operator.call<{ messages: Array<{ channel: string; body: any }> }>('GET', 'outbox');
		const slack = messages.filter((m) => m.channel === 'slack').map((m) => String(m.body.text));
		const ledger = messages.filter((m) => m.channel === 'ledger').map((m) => m.body);
		for (const memo of memos) {
			expect(slack.filter((t) => t.includes(`(${memo})`) && t.includes('is funded'))).toHaveLength(1);
			expect(slack.filter((t) => t.includes(`(${memo})`) && t.includes('was delivered'))).toHaveLength(1);
			expect(ledger.filter((row) => row.memo === memo && row.paymentOrderId === orders.find((o: any) => o.memo === memo).id)).toHaveLength(1);
		}
		expect(slack).toHaveLength(6);
		expect(ledger).toHaveLength(3);
	});

	test('every other console button has its visible effect', async () => {
		// Setup through the API (the walk above stays click-only): two orders and a new, PENDING wallet.
		const suffix = Date.now().toString(36);
		await stage.operator.createOrder(10, 'BTN-EXPIRE', `walk-expire-${suffix}`);
		await stage.operator.createOrder(20, 'BTN-FAIL', `walk-fail-${suffix}`);
		const dave = `0x${'d'.repeat(40)}`;
		await stage.operator.api('POST', '/add-user-record', { label: `dave-${suffix}`, wallets: [{ address: dave, chain: 'ethereum' }] });

		await browser.goto(`${stage.sandbox.mainUrl}/`);
		await browser.waitFor('the console to load', `document.body.dataset.ready === 'true'`);
		const say = `document.querySelector('#message').textContent`;

		// Activate a wallet.
		const wallet = `#wallets tr[data-address="${dave}"]`;
		await browser.waitFor('the PENDING wallet', `document.querySelector('${wallet} td.status')?.textContent === 'PENDING'`, 60_000);
		await browser.click(`${wallet} button[data-action="activate"]`);
		await browser.waitFor(
			'the wallet ACTIVE',
			`document.querySelector('${wallet} td.status')?.textContent === 'ACTIVE' && !document.querySelector('${wallet} button')`,
			60_000,
		);
		expect(await browser.evaluate(say)).toContain('is ACTIVE');

		// Expire an order.
		await browser.waitFor('BTN-EXPIRE', `${statusOf('BTN-EXPIRE')} === 'AWAITING_FUNDS'`, 60_000, shown);
		await browser.clickWhere('Expire', `${row('BTN-EXPIRE')}.querySelector('button[data-action="expire"]')`);
		await browser.waitFor('BTN-EXPIRE expired', `${statusOf('BTN-EXPIRE')} === 'EXPIRED'`, 60_000, shown);

		// Fail a distribution: fund, mark, close the window.
		await fund('BTN-FAIL', 'full', 'fund-attribute');
		await browser.waitFor('BTN-FAIL funded', `${statusOf('BTN-FAIL')} === 'FUNDED'`, 120_000, shown);
		// As in the walk: the "is funded" line first, before the order moves on.
		await browser.waitFor('the "is funded" line of BTN-FAIL', `${slackLines(js('BTN-FAIL'), 'is funded')}.length > 0`, 180_000, outboxShown);
		await browser.clickWhere('Fail next distribution', `${row('BTN-FAIL')}.querySelector('button[data-action="fail-distribution"]')`);
		await browser.waitFor('the fail message', `${say}.includes('will fail')`, 60_000, shown);
		await browser.click('#close-netting');
		await browser.waitFor('BTN-FAIL distribution failed', `${statusOf('BTN-FAIL')} === 'DISTRIBUTION_FAILED'`, 120_000, shown);
		// Example 2 tells the channel about it, once.
		await browser.waitFor(
			'a Slack line about the failed distribution',
			`${slackLines(js('BTN-FAIL'), 'failed to distribute')}.length > 0`,
			180_000,
			outboxShown,
		);
		expect(await browser.evaluate(`${slackLines(js('BTN-FAIL'), 'is funded')}.length`)).toBe(1);
		expect(await browser.evaluate(`${slackLines(js('BTN-FAIL'), 'failed to distribute')}.length`)).toBe(1);
		await shot('10-expired-and-failed');

		// Replay a delivery that ran a workflow: the service sends the same event again, as a new delivery
		// (found by its id: the list is bounded and newest first). The trigger has run that event already,
		// so it acknowledges the copy and drops it as a duplicate, and the console says so.
		const replayed = await browser.waitFor<string>(
			'a delivery that ran',
			`document.querySelector('#deliveries tbody tr[data-outcome="ran"]')?.dataset.delivery`,
			60_000,
		);
		const workflow = await browser.evaluate<string>(`document.querySelector('#deliveries tbody tr[data-delivery="${replayed}"]').children[0].textContent`);
		expect(workflow).toMatch(/Example [23]/);
		await browser.click(`#deliveries tbody tr[data-delivery="${replayed}"] button[data-action="replay"]`);
		const copy = await browser.waitFor<string>('the replay message', `/^Replayed as delivery (\\S+)\\.$/.exec(${say})?.[1]`, 60_000, shown);
		expect(copy).not.toBe(replayed);
		const copyRow = `document.querySelector('#deliveries tbody tr[data-delivery=${js(copy)}]')`;
		await browser.waitFor(
			'the replay dropped as a duplicate',
			`${copyRow}?.dataset.outcome === 'dropped' && ${copyRow}.querySelector('td.outcome').textContent.startsWith('dropped by the trigger as a duplicate')`,
			60_000,
			`${copyRow}?.textContent`,
		);
		// The same workflow, and the copy says what it repeats.
		expect(await browser.evaluate(`${copyRow}.children[0].textContent`)).toBe(workflow);
		expect(await browser.evaluate(`${copyRow}.children[1].textContent`)).toContain('replay of');

		// Inject a fault: the form's defaults (the next POST /payment answers 503), shown in the list.
		await browser.click('#fault button[data-action="inject-fault"]');
		await browser.waitFor('the fault listed', `document.querySelector('#faults').textContent.includes('^/api/v1/payment$ → 503 (1 left)')`, 60_000, shown);
		expect(await browser.evaluate(say)).toContain('Fault injected');
		await shot('11-replay-and-fault');
		// It answers the next matching request, as listed.
		await expect(stage.operator.createOrder(5, 'BTN-FAULT', `walk-fault-${suffix}`)).rejects.toThrow(/503/);
		await browser.waitFor('the fault used up', `!document.querySelector('#faults').textContent.includes('^/api/v1/payment$')`, 60_000);
	});

	test('a payee of the demo subaccount: refused with the fix that works, paid once it is followed in the panel, and not paid again by a re-run', async () => {
		const state = await stage.operator.state();
		const carol = state.users.find((u: any) => u.label === 'carol');
		const alice = state.users.find((u: any) => u.label === 'alice');
		// The console lists carol's wallets as payable from the demo subaccount (her account), not with the main key.
		expect(carol.accountId).not.toBe(alice.accountId);
		const carolWallet = carol.wallets.find((w: any) => w.chain === 'base').address;
		const carolOrders = async () => (await overview()).orders.filter((o: any) => o.memo === 'INV-1006');

		// Run alone (jest -t), this test makes the owner account first.
		await browser.goto(`${n8n.baseUrl}/home/workflows`);
		const page = await browser.waitFor<string>(
			'the workflows list or the owner setup',
			`(location.pathname === '/setup' && document.querySelector('input[name="password"]') && 'setup') || (document.querySelector('[data-test-id="workflow-card-name"]') && 'list')`,
			120_000,
		);
		if (page === 'setup') await browser.setUpOwner(n8n.baseUrl, 'Sandbox', 'Sandbox-owner-1');

		// 1. Example 1 pays carol alone: its Payees node gets her row (select all, paste).
		await openWorkflow('Example 1');
		const carolRow = { payee: 'Carol (demo subaccount)', chain: 'base', address: carolWallet, asset: 'USDC', amountUsd: '7.00', reference: 'INV-1006' };
		await editPayees(JSON.stringify({ payees: [carolRow] }), `t.includes('INV-1006') && !t.includes('INV-1001')`);
		await runExample1();
		// Refused on the error branch, with the fix that works: pay from her subaccount.
		await person.openNode('Failed payees');
		const fix = 'set Additional Fields → Subaccount ID to its ID and Sender User ID to a user of it';
		await browser.waitFor(
			'carol refused, with the fix',
			`(() => { const t = document.querySelector('[data-test-id="ndv"]')?.innerText ?? ''; return t.includes('INV-1006') && t.includes(${js(fix)}); })()`,
			60_000,
			`document.querySelector('[data-test-id="ndv"]')?.innerText.slice(0, 3000)`,
		);
		await shot('12-carol-refused');
		expect(await carolOrders()).toEqual([]);
		await person.closePanel();

		// 2. Following it in Create payment orders: Sender User ID → carol (a user of the subaccount), and
		// Additional Fields → Add Field → Subaccount ID → her subaccount's ID (both as the console lists them).
		await person.openNode('Create payment orders');
		// Sender User ID is a resource locator, By ID in Example 1: its value input.
		await replaceText('Sender User ID', locatorInput('fromUserId'), carol.id);
		await addCollectionField('Add Field', 'Subaccount ID', 'subaccountId');
		await replaceText('Subaccount ID', `${param('subaccountId')}?.querySelector('input, textarea')`, carol.accountId);
		await shot('13-carol-subaccount-fields');
		await person.closePanel();
		await runExample1();
		const [paid] = await carolOrders();
		expect(paid).toMatchObject({ status: 'AWAITING_FUNDS', accountId: carol.accountId });
		expect(Number(paid.amountUsd)).toBe(7);
		await person.openNode('Create payment orders');
		await browser.waitFor("carol's order in the output", `${outputShown}?.includes(${js(paid.id)})`, 60_000, outputShown);
		await shot('14-carol-paid');
		await person.closePanel();

		// 3. Run again: her order is found by its Business Key, nothing new is made.
		const ordersBefore = (await overview()).orders.length;
		await runExample1();
		expect((await carolOrders()).map((o: any) => o.id)).toEqual([paid.id]);
		expect((await overview()).orders.length).toBe(ordersBefore);
		await person.openNode('Create payment orders');
		await browser.waitFor('the re-run found her order', `${outputShown}?.includes(${js(paid.id)})`, 60_000, outputShown);
		const created = await browser.evaluate<string[]>(createdColumn);
		expect(created).toEqual(['false']);
		await shot('15-carol-rerun');
	});

	/** Clicks into a field, selects what it holds (Ctrl+A) and types the new value; waits until the field shows it. */
	async function replaceText(field: string, element: string, text: string) {
		await person.replace(field, element, text);
		await browser.waitFor(`${field} = ${text}`, `(${element})?.value === ${js(text)}`, 10_000, `(${element})?.value`);
	}
	/**
	 * Adds an option of a collection parameter (Additional Fields) as n8n 2.40.7 offers it: a button that adds
	 * its only option, or a select of its options ("Add Field"); waits for the new field.
	 */
	async function addCollectionField(adder: string, option: string, name: string) {
		const add = `[...document.querySelectorAll('[data-test-id="ndv"] [data-test-id="collection-parameter-add"]')].find((e) =>
			(e.querySelector('input')?.placeholder ?? e.textContent).includes(${js(adder)}))`;
		await browser.clickWhere(`the "${adder}" control`, `(() => { const e = ${add}; return e?.querySelector('.el-select__wrapper, input') ?? e; })()`, 60_000);
		const optionEntry = `[...document.querySelectorAll('[data-test-id="collection-parameter-option"]')].find((e) => e.offsetParent && e.textContent.trim() === ${js(option)})`;
		await browser.waitFor(
			`the option ${option} or the field itself`,
			`!!(${optionEntry} || ${param(name)})`,
			30_000,
			`document.querySelector('[data-test-id="ndv"]')?.innerText.slice(0, 2000)`,
		);
		if (!(await browser.evaluate(`!!${param(name)}`))) await browser.clickWhere(`the option ${option}`, optionEntry, 30_000);
		await browser.waitFor(`the ${option} field`, `!!${param(name)}`, 30_000);
	}
	/**
	 * Example 1's Payees node (Edit Fields, JSON): select all, paste `payees` (JSON text), wait until the editor's
	 * text `t` passes `check` (a page expression), take the screenshot `shotName` if given, close the panel.
	 */
	async function editPayees(payees: string, check: string, shotName?: string) {
		await person.openNode('Payees');
		const editor = `[...document.querySelectorAll('.cm-content')].find((e) => e.textContent.includes('payees'))`;
		await browser
			.waitFor(
				'the payees in the Payees panel',
				// A boolean: CodeMirror's element cannot be returned by value (the wait would never see it).
				`!!${editor}`,
				60_000,
				`({ path: location.pathname, editors: [...document.querySelectorAll('.cm-content')].map((e) => e.textContent.slice(0, 200)), ndv: document.querySelector('[data-test-id="ndv"]')?.innerText.slice(0, 1500), nodes: [...document.querySelectorAll('[data-test-id="canvas-node"]')].map((e) => e.dataset.nodeName), body: document.body.innerText.slice(0, 800) })`,
			)
			.catch(async (error: Error) => {
				await shot('payees-not-found');
				throw error;
			});
		await person.replace('payees', editor, payees);
		await browser.waitFor(
			'the new payees in the editor',
			`(() => { const t = ${editor}?.textContent ?? ''; return ${check}; })()`,
			10_000,
			`${editor}?.textContent`,
		);
		if (shotName) await shot(shotName);
		await person.closePanel();
	}
	/** Runs Example 1 from "Run now" with the canvas's execute button; resolves once n8n has saved the run. */
	async function runExample1() {
		const before = n8n.finishedExecutions(example1Id).length;
		await browser.click('button[aria-label="Select trigger node"]');
		await browser.click('[data-test-id="action-Run now"]');
		await browser.waitFor(
			'the button to run from "Run now"',
			`document.querySelector('[data-test-id="execute-workflow-button"]').textContent.includes('Run now')`,
			30_000,
		);
		await browser.click('[data-test-id="execute-workflow-button"]');
		await n8n.waitForExecutions(example1Id, before + 1, 180_000);
		await browser.waitFor('the run shown as finished', `!document.querySelector('[data-test-id="stop-execution-button"]')`, 60_000);
	}

	const overview = () => stage.operator.call('GET', 'overview');
	async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs = 60_000) {
		const deadline = Date.now() + timeoutMs;
		while (!(await check())) {
			if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
			await new Promise((resolve) => setTimeout(resolve, 500));
		}
	}
});
