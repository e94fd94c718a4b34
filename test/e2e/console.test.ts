/**
 * The sandbox console in a real headless browser (Debian's chromium over the DevTools protocol):
 * an order created by an n8n workflow is walked to DISTRIBUTED with clicks only (overfund it from
 * alice's wallet and attribute, then close the netting window), and the console says in words where
 * the order stands, its surplus, and what the close did. Screenshots of each step are kept in
 * .e2e/screenshots/ (git-ignored) as test artefacts.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

import { Browser } from '../../harness/browser';
import { nodeItems } from '../../harness/executions';
import { N8nInstance } from '../../harness/n8nProcess';
import { sandboxCredential } from '../../harness/sandbox';
import { startSandboxStage, stopAll, type SandboxStage } from '../../harness/stage';
import { action, chain } from '../../harness/workflows';
import { describeBrowser, SCREENSHOTS } from './support';

jest.setTimeout(300_000);

describeBrowser('sandbox console in a real browser', () => {
	let stage: SandboxStage;
	let n8n: N8nInstance;
	let browser: Browser;

	beforeAll(async () => {
		// Deposits confirm in a few scaled seconds.
		stage = await startSandboxStage({ allowLoopbackWebhooks: true, timeScale: 10 });
		n8n = await N8nInstance.create();
		browser = await Browser.launch();
	});
	afterAll(() => stopAll(browser, n8n, stage?.sandbox));

	test('an order created by n8n is funded, attributed and distributed through clicks in the console', async () => {
		const state = await stage.operator.state();
		const [alice, bob] = state.users;
		const credential = sandboxCredential(stage.sandbox);
		await n8n.importCredential(credential);
		await n8n.importWorkflows([
			chain(
				'consoleOrder0001',
				'console: create an order',
				[
					action('Create order', 'paymentOrder', 'create', {
						mode: 'standard',
						fromUserId: alice.id,
						toAddress: bob.wallets[0].address,
						toChain: bob.wallets[0].chain,
						asset: 'USDC',
						amountUsd: '42.5',
						expiry: 'inMinutes',
						expiresInMinutes: 60,
						memo: 'INV-CONSOLE-1',
						idempotencyKeyMode: 'derived',
					}),
				],
				{ id: credential.id, name: credential.name },
			),
		]);
		const result = await n8n.execute('consoleOrder0001');
		if (result.code !== 0 || !result.run) throw new Error(`workflow failed\n${result.stdout.slice(-3000)}`);
		const [created] = nodeItems(result.run.data, 'Create order') as any[];
		const id = String(created.paymentOrderId ?? created.id);
		const row = `#orders tr[data-order="${id}"]`;
		const statusOf = `document.querySelector('${row} td.status')?.textContent`;
		const shown = `({ message: document.querySelector('#message').textContent, row: document.querySelector('${row}')?.textContent })`;

		await browser.goto(`${stage.sandbox.mainUrl}/`);
		await browser.waitFor('the console to load', `document.body.dataset.ready === 'true'`);
		await browser.waitFor('the order row', `${statusOf} === 'AWAITING_FUNDS'`);
		expect(await browser.evaluate(`document.querySelector('${row}').textContent`)).toContain('INV-CONSOLE-1');
		// The sender list starts with alice's first wallet: the order's own user.
		expect(await browser.evaluate(`document.querySelector('${row} select[data-field="sender"]').value`)).toBe(
			`${alice.wallets[0].chain}|${alice.wallets[0].address}`,
		);
		await browser.screenshot(join(SCREENSHOTS, 'console-1-awaiting-funds.png'));
		// Each user's account and how to pay them: carol belongs to the demo subaccount, paid from it.
		const carol = state.users.find((u: any) => u.label === 'carol');
		const carolRow = `#wallets tr[data-address="${carol.wallets[0].address}"]`;
		expect(await browser.evaluate(`document.querySelector('${carolRow} td.account').textContent`)).toBe(`subaccount Demo subaccount ${carol.accountId}`);
		expect(await browser.evaluate(`document.querySelector('${carolRow} td.pay-with').textContent`)).toContain(
			`Additional Fields → Subaccount ID ${carol.accountId}`,
		);
		const aliceRow = `#wallets tr[data-address="${alice.wallets[0].address}"]`;
		expect(await browser.evaluate(`document.querySelector('${aliceRow} td.account').textContent`)).toBe('main account');

		// 10% more than the order's amount: the console shows the surplus and where it goes.
		await browser.select(`${row} select[data-field="amount"]`, 'over');
		await browser.click(`${row} button[data-action="fund-attribute"]`);
		await browser.waitFor('the attribution message', `document.querySelector('#message').textContent.includes('attributed')`, 60_000, shown);
		await browser.waitFor('FUNDED', `${statusOf} === 'FUNDED'`, 120_000, shown);
		const standing = `document.querySelector('${row} td.standing').textContent`;
		await browser.waitFor('the surplus', `${standing}.includes('overfunded by 4.25 USD: the surplus waits for a return wallet on ethereum')`, 60_000, shown);
		expect(await browser.evaluate(standing)).toContain('funded: delivered when netting window 1 closes');
		await browser.screenshot(join(SCREENSHOTS, 'console-2-funded.png'));

		await browser.click('#close-netting');
		await browser.waitFor('DISTRIBUTED', `${statusOf} === 'DISTRIBUTED'`, 120_000, shown);
		// The close in words, in the message and in the header line that stays.
		const closed = 'Netting window 1 closed: 1 order delivered (INV-CONSOLE-1). Window 2 is open.';
		expect(await browser.evaluate(`document.querySelector('#message').textContent`)).toBe(closed);
		await browser.waitFor('the last close in the header', `document.querySelector('#netting').textContent.endsWith(${JSON.stringify(closed)})`, 30_000);
		expect(await browser.evaluate(standing)).toContain('delivered at the close of netting window 1');
		await browser.screenshot(join(SCREENSHOTS, 'console-3-distributed.png'));

		// The sandbox agrees, and the console's own requests were same-origin JSON calls only.
		expect((await stage.operator.api('GET', `/payment-orders/${id}`)).status).toBe('DISTRIBUTED');
		expect(await browser.evaluate(`document.querySelector('#message').className`)).toBe('');
		for (const file of ['console-1-awaiting-funds.png', 'console-2-funded.png', 'console-3-distributed.png'])
			expect(existsSync(join(SCREENSHOTS, file))).toBe(true);
	});
});
