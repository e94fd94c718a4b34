import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/**
 * A local OpenAI-compatible chat model that answers from a script instead of a model: n8n's
 * OpenAI Chat Model node, with its credential's Base URL pointed here, talks to it exactly as it
 * would to api.openai.com (`POST /v1/chat/completions`, plain JSON or server-sent events when the
 * request asks `stream: true`). Every request body is recorded, so a test can read what n8n sent
 * the model: the tools with their descriptions and parameter schemas, and the tool results
 * (including a tool's error text) of the earlier steps. No outside service is involved.
 */

export interface ChatMessage {
	role: 'system' | 'user' | 'assistant' | 'tool';
	content?: string | null | Array<{ type: string; text?: string }>;
	tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
	tool_call_id?: string;
}

export interface ChatRequest {
	model: string;
	messages: ChatMessage[];
	tools?: Array<{ type: 'function'; function: { name: string; description?: string; parameters?: any } }>;
	stream?: boolean;
	[key: string]: unknown;
}

/** What the script answers: tool calls (the agent then runs the tools and asks again) or a final text. */
export type ScriptedReply = { toolCalls: Array<{ name: string; args: Record<string, unknown> }> } | { text: string };

export type Script = (request: ChatRequest) => ScriptedReply;

/** The text of a message, whether content is a string or a list of parts. */
export function textOf(message: ChatMessage | undefined): string {
	const content = message?.content;
	if (typeof content === 'string') return content;
	if (Array.isArray(content)) return content.map((part) => part.text ?? '').join('');
	return '';
}

export class ScriptedModel {
	readonly requests: ChatRequest[] = [];
	private server: Server | undefined;
	private calls = 0;
	/** The base URL to put in n8n's OpenAI credential (`url`). */
	url = '';

	constructor(private readonly script: Script) {}

	async start(): Promise<this> {
		this.server = createServer((req, res) => this.handle(req, res));
		await new Promise<void>((done) => this.server!.listen(0, '127.0.0.1', () => done()));
		const address = this.server.address();
		this.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/v1`;
		return this;
	}

	async close(): Promise<void> {
		if (!this.server) return;
		this.server.closeAllConnections();
		await new Promise<void>((done) => this.server!.close(() => done()));
	}

	private handle(req: IncomingMessage, res: ServerResponse): void {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			if (req.method === 'GET' && /\/models$/.test(req.url ?? '')) {
				return json(res, 200, { object: 'list', data: [{ id: 'scripted-model', object: 'model', owned_by: 'test' }] });
			}
			if (req.method !== 'POST' || !/\/chat\/completions$/.test(req.url ?? '')) {
				return json(res, 404, { error: { message: `the scripted model serves POST /v1/chat/completions only (got ${req.method} ${req.url})` } });
			}
			let request: ChatRequest;
			try {
				request = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequest;
			} catch {
				return json(res, 400, { error: { message: 'body is not JSON' } });
			}
			this.requests.push(request);
			let reply: ScriptedReply;
			try {
				reply = this.script(request);
			} catch (error) {
				return json(res, 500, { error: { message: `script failed: ${(error as Error).message}` } });
			}
			const id = `chatcmpl-${++this.calls}`;
			const message = {
				role: 'assistant',
				content: 'text' in reply ? reply.text : null,
				...('toolCalls' in reply
					? {
							tool_calls: reply.toolCalls.map((call, n) => ({
								id: `call_${this.calls}_${n}`,
								type: 'function',
								function: { name: call.name, arguments: JSON.stringify(call.args) },
							})),
						}
					: {}),
			};
			const finish = 'toolCalls' in reply ? 'tool_calls' : 'stop';
			const usage = { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 };
			const created = Math.floor(Date.now() / 1000);
			if (request.stream) {
				res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
				const chunk = (delta: object, finishReason: string | null, extra: object = {}) =>
					res.write(
						`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: request.model, choices: [{ index: 0, delta, finish_reason: finishReason }], ...extra })}\n\n`,
					);
				const delta: Record<string, unknown> = { role: 'assistant', content: message.content ?? '' };
				if (message.tool_calls) delta.tool_calls = message.tool_calls.map((call, index) => ({ index, ...call }));
				chunk(delta, null);
				chunk({}, finish, { usage });
				res.end('data: [DONE]\n\n');
				return;
			}
			json(res, 200, {
				id,
				object: 'chat.completion',
				created,
				model: request.model,
				choices: [{ index: 0, message, finish_reason: finish, logprobs: null }],
				usage,
			});
		});
	}
}

function json(res: ServerResponse, status: number, body: unknown): void {
	res.writeHead(status, { 'content-type': 'application/json' });
	res.end(JSON.stringify(body));
}
