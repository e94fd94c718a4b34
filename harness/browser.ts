/**
 * Debian's headless chromium driven over the Chrome DevTools protocol (Node's own WebSocket, no
 * extra package): open a page, evaluate, click at an element's centre with real mouse events, and
 * take screenshots.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const CHROMIUM = process.env.CHROMIUM_BIN ?? '/usr/bin/chromium';

export class Browser {
	private ws!: WebSocket;
	private nextId = 1;
	private pending = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>();
	private session = '';

	private constructor(
		private readonly proc: ChildProcess,
		private readonly profile: string,
	) {}

	static async launch(): Promise<Browser> {
		const profile = mkdtempSync(join(tmpdir(), 'clearinghouse-chromium-'));
		const proc = spawn(
			CHROMIUM,
			[
				'--headless',
				'--no-sandbox',
				'--disable-gpu',
				'--disable-quic',
				'--no-first-run',
				'--disable-background-networking',
				'--disable-component-update',
				'--disable-sync',
				`--user-data-dir=${profile}`,
				'--remote-debugging-port=0',
				'--window-size=1400,1000',
				'about:blank',
			],
			{ stdio: ['ignore', 'ignore', 'pipe'] },
		);
		const browser = new Browser(proc, profile);
		const url = await new Promise<string>((resolve, reject) => {
			let seen = '';
			const timer = setTimeout(() => reject(new Error(`chromium did not start in 60 s: ${seen.slice(-2000)}`)), 60_000);
			proc.stderr!.on('data', (chunk: Buffer) => {
				seen += chunk.toString();
				const match = /DevTools listening on (ws:\/\/\S+)/.exec(seen);
				if (match) {
					clearTimeout(timer);
					resolve(match[1]);
				}
			});
			proc.on('exit', (code) => reject(new Error(`chromium exited ${code}: ${seen.slice(-2000)}`)));
		});
		await browser.connect(url);
		const { targetId } = await browser.send('Target.createTarget', { url: 'about:blank' }, false);
		const { sessionId } = await browser.send('Target.attachToTarget', { targetId, flatten: true }, false);
		browser.session = sessionId;
		await browser.send('Page.enable');
		await browser.send('Runtime.enable');
		return browser;
	}

	private connect(url: string): Promise<void> {
		this.ws = new WebSocket(url);
		this.ws.onmessage = (event) => {
			const message = JSON.parse(String(event.data));
			const waiter = message.id !== undefined ? this.pending.get(message.id) : undefined;
			if (!waiter) return;
			this.pending.delete(message.id);
			if (message.error) waiter.reject(new Error(`${message.error.message} ${message.error.data ?? ''}`));
			else waiter.resolve(message.result);
		};
		return new Promise((resolve, reject) => {
			this.ws.onopen = () => resolve();
			this.ws.onerror = () => reject(new Error(`cannot connect to ${url}`));
		});
	}

	send(method: string, params: Record<string, unknown> = {}, inPage = true): Promise<any> {
		const id = this.nextId++;
		this.ws.send(JSON.stringify({ id, method, params, ...(inPage ? { sessionId: this.session } : {}) }));
		return new Promise((resolve, reject) => this.pending.set(id, { resolve, reject }));
	}

	async goto(url: string): Promise<void> {
		await this.send('Page.navigate', { url });
	}

	/** The value of a page expression (awaited when it is a promise). */
	async evaluate<T = unknown>(expression: string): Promise<T> {
		const { result, exceptionDetails } = await this.send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true });
		if (exceptionDetails) throw new Error(`page error: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
		return result.value as T;
	}

	/** Polls a page expression until it is truthy. */
	async waitFor<T>(what: string, expression: string, timeoutMs = 60_000, explain?: string): Promise<T> {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const value = await this.evaluate<T>(expression).catch(() => undefined);
			if (value) return value;
			if (Date.now() > deadline) {
				const seen = explain ? await this.evaluate(explain).catch((error: Error) => error.message) : undefined;
				throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${explain ? `; page shows: ${JSON.stringify(seen)}` : ''}`);
			}
			await new Promise((resolve) => setTimeout(resolve, 250));
		}
	}

	/** A real mouse click (press and release) at the centre of the element `selector` finds. */
	async click(selector: string, timeoutMs = 60_000): Promise<void> {
		await this.clickWhere(`a clickable ${selector}`, `document.querySelector(${JSON.stringify(selector)})`, timeoutMs);
	}

	/**
	 * A real mouse click at the centre of the element a page expression returns (also for elements
	 * found by their text); waits until it exists, is enabled, has a size and has stopped moving
	 * (dialogs animate in, and a click during the animation lands beside the button).
	 */
	async clickWhere(what: string, elementExpression: string, timeoutMs = 60_000, clickCount = 1): Promise<void> {
		const locate = `(() => { const el = (${elementExpression}); if (!el || el.disabled || el.getAttribute('aria-disabled') === 'true') return null;
			el.scrollIntoView({ block: 'center' }); const r = el.getBoundingClientRect(); if (!r.width || !r.height) return null;
			return { x: Math.round(r.left + r.width / 2), y: Math.round(r.top + r.height / 2) }; })()`;
		const deadline = Date.now() + timeoutMs;
		let box = await this.waitFor<{ x: number; y: number }>(what, locate, timeoutMs);
		for (;;) {
			await new Promise((resolve) => setTimeout(resolve, 200));
			const again = await this.waitFor<{ x: number; y: number }>(what, locate, Math.max(1_000, deadline - Date.now()));
			if (again.x === box.x && again.y === box.y) break;
			box = again;
		}
		await this.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x: box.x, y: box.y });
		for (let count = 1; count <= clickCount; count++) {
			for (const type of ['mousePressed', 'mouseReleased']) {
				await this.send('Input.dispatchMouseEvent', { type, x: box.x, y: box.y, button: 'left', clickCount: count });
			}
		}
	}

	/**
	 * Picks an option of a native <select> as the keyboard would leave it (value, then input and change
	 * events): headless chromium draws no popup to click in.
	 */
	async select(selector: string, value: string): Promise<void> {
		const done = await this.evaluate<boolean>(`(() => { const el = document.querySelector(${JSON.stringify(selector)});
			if (!el || ![...el.options].some((o) => o.value === ${JSON.stringify(value)})) return false;
			el.focus(); el.value = ${JSON.stringify(value)}; el.dispatchEvent(new Event('input', { bubbles: true }));
			el.dispatchEvent(new Event('change', { bubbles: true })); return true; })()`);
		if (!done) throw new Error(`no option ${value} in ${selector}`);
	}

	/** Clicks into a field and types text into it, as a keyboard would (focus, then key input). */
	async type(selector: string, text: string): Promise<void> {
		await this.click(selector);
		await this.waitFor(`focus in ${selector}`, `document.activeElement === document.querySelector(${JSON.stringify(selector)})`, 10_000);
		await this.send('Input.insertText', { text });
	}

	/** Presses and releases one key with modifiers held (1 Alt, 2 Ctrl, 4 Meta, 8 Shift), e.g. Ctrl+A as `press('a', 2)`. */
	async press(key: string, modifiers = 0): Promise<void> {
		const named: Record<string, number> = { Enter: 13, Escape: 27, Tab: 9, Backspace: 8, Delete: 46 };
		const code = key.length === 1 ? `Key${key.toUpperCase()}` : key;
		const keyCode = key.length === 1 ? key.toUpperCase().charCodeAt(0) : (named[key] ?? 0);
		// Headless chromium runs no editing shortcut of its own: select-all is named as a command.
		const commands = modifiers & 2 && key === 'a' ? { commands: ['selectAll'] } : {};
		for (const type of ['rawKeyDown', 'keyUp']) {
			const extra = type === 'rawKeyDown' ? commands : {};
			await this.send('Input.dispatchKeyEvent', { type, key, code, modifiers, windowsVirtualKeyCode: keyCode, nativeVirtualKeyCode: keyCode, ...extra });
		}
	}

	/** Types text where the focus is, as a keyboard (or a paste) would. */
	async insertText(text: string): Promise<void> {
		await this.send('Input.insertText', { text });
	}

	/**
	 * n8n's first visit as a person makes it: opens the editor, fills the owner setup form (owner@example.com,
	 * named `<firstName> Owner`), submits it and waits for the editor. `beforeSubmit` sees the filled form (a screenshot).
	 */
	async setUpOwner(n8nBaseUrl: string, firstName: string, password: string, beforeSubmit?: () => Promise<unknown>): Promise<void> {
		await this.goto(`${n8nBaseUrl}/`);
		await this.waitFor('the owner setup form', `location.pathname === '/setup' && document.querySelector('input[name="password"]')`, 120_000);
		await this.type('input[name="email"]', 'owner@example.com');
		await this.type('input[name="firstName"]', firstName);
		await this.type('input[name="lastName"]', 'Owner');
		await this.type('input[name="password"]', password);
		await beforeSubmit?.();
		await this.click('[data-test-id="form-submit-button"]');
		await this.waitFor('the editor after setup', `!['/setup', '/signin'].includes(location.pathname)`, 60_000);
	}

	/** A PNG of the page; `scale` below 1 shrinks the visible viewport (a picture for the docs). */
	async screenshot(file: string, scale?: number): Promise<void> {
		const clip = scale
			? await this.evaluate<{ width: number; height: number }>(`({ width: window.innerWidth, height: window.innerHeight })`).then((v) => ({
					x: 0,
					y: 0,
					...v,
					scale,
				}))
			: undefined;
		const { data } = await this.send('Page.captureScreenshot', { format: 'png', ...(clip ? { clip } : { captureBeyondViewport: true }) });
		mkdirSync(join(file, '..'), { recursive: true });
		writeFileSync(file, Buffer.from(data, 'base64'));
	}

	async close(): Promise<void> {
		try {
			this.ws?.close();
		} catch {
			// already closed
		}
		if (this.proc.exitCode === null) {
			const exited = new Promise((resolve) => this.proc.once('exit', resolve));
			this.proc.kill('SIGTERM');
			await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
			if (this.proc.exitCode === null) this.proc.kill('SIGKILL');
		}
		rmSync(this.profile, { recursive: true, force: true });
	}
}
