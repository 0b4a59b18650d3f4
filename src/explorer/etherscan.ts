// The Etherscan-compatible API at /api (module=contract: getabi, getsourcecode, verifysourcecode,
// checkverifystatus), in Etherscan's own shape {status: "1"|"0", message: "OK"|"NOTOK", result}
// and texts, because Hardhat's and Foundry's verifiers parse them. GET and POST (form-encoded or
// JSON) are both accepted; errors are HTTP 200 with NOTOK, as on Etherscan.
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { ExplorerServices, RouteDef } from './definition.js';
import { BadRequestError, ExplorerError, toJson } from './envelope.js';
import type { Hex } from './indexer/records.js';
import { readJson } from './server.js';
import type { VerifiedContract } from './contracts/records.js';
import { parseVerificationRequest } from './contracts/request.js';
import { AlreadyVerifiedError, NoContractCodeError, verifierFor } from './contracts/verifier.js';

export const ETHERSCAN_PATH = '/api';

/** Etherscan's texts that verifiers compare against, verbatim. */
export const ETHERSCAN_TEXT = {
  pass: 'Pass - Verified',
  pending: 'Pending in queue',
  fail: 'Fail - Unable to verify',
  alreadyVerified: 'Contract source code already verified',
  notVerified: 'Contract source code not verified',
  noCode: (address: string) => `Unable to locate ContractCode at ${address}`,
  invalidAddress: 'Invalid Address format',
  unknownGuid: 'Unable to locate verification guid',
  badModule: 'Error! Missing Or invalid Module name',
  badAction: 'Error! Missing Or invalid Action name',
  standardJsonOnly: 'Only codeformat=solidity-standard-json-input is supported',
} as const;

export interface EtherscanReply {
  status: '1' | '0';
  message: 'OK' | 'NOTOK';
  result: unknown;
}

const ok = (result: unknown): EtherscanReply => ({ status: '1', message: 'OK', result });
const notOk = (result: string): EtherscanReply => ({ status: '0', message: 'NOTOK', result });

/** How the access control sees this endpoint (public: anyone, API keys raise the rate limit). */
const routeOf = (method: 'GET' | 'POST'): RouteDef => ({
  id: method === 'GET' ? 'etherscanGet' : 'etherscanPost',
  method,
  path: ETHERSCAN_PATH,
  category: 'Contracts',
  summary: 'Etherscan-compatible API (module=contract)',
  auth: 'public',
  response: { type: 'object' },
});
const GET_ROUTE = routeOf('GET');
const POST_ROUTE = routeOf('POST');

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** The parameters of a POST body: form fields or a JSON object. */
async function readBody(ctx: Context): Promise<Record<string, unknown>> {
  const value = await readJson(ctx);
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new BadRequestError('the JSON body must be an object');
  return value as Record<string, unknown>;
}

const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined);

/** Etherscan's getsourcecode entry; standard JSON input goes in SourceCode wrapped in double braces, as Etherscan returns it. */
function sourceEntry(c: VerifiedContract | undefined) {
  return {
    SourceCode: c ? `{${JSON.stringify(c.input)}}` : '',
    ABI: c ? JSON.stringify(c.abi) : ETHERSCAN_TEXT.notVerified,
    ContractName: c?.contractName ?? '',
    CompilerVersion: c ? `v${c.compilerVersion}` : '',
    OptimizationUsed: c ? (c.optimizer.enabled ? '1' : '0') : '',
    Runs: c ? String(c.optimizer.runs) : '',
    ConstructorArguments: c?.constructorArguments ?? '',
    EVMVersion: c ? (c.evmVersion ?? 'Default') : '',
    Library: '',
    LicenseType: c?.license ?? '',
    Proxy: '0',
    Implementation: '',
    SwarmSource: '',
  };
}

/** Answers one call of the contract module. */
async function contractAction(action: string | undefined, p: Record<string, unknown>, services: ExplorerServices): Promise<EtherscanReply> {
  const verifier = verifierFor(services);
  switch (action) {
    case 'getabi':
    case 'getsourcecode': {
      const address = text(p.address);
      if (!address || !ADDRESS.test(address)) return notOk(ETHERSCAN_TEXT.invalidAddress);
      const c = verifier.verified(address.toLowerCase() as Hex);
      if (action === 'getsourcecode') return ok([sourceEntry(c)]);
      return c ? ok(JSON.stringify(c.abi)) : notOk(ETHERSCAN_TEXT.notVerified);
    }
    case 'verifysourcecode': {
      const address = text(p.contractaddress);
      if (!address || !ADDRESS.test(address)) return notOk(ETHERSCAN_TEXT.invalidAddress);
      if ((text(p.codeformat) ?? 'solidity-standard-json-input') !== 'solidity-standard-json-input') return notOk(ETHERSCAN_TEXT.standardJsonOnly);
      let input: unknown = p.sourceCode;
      if (typeof input === 'string') {
        try {
          input = JSON.parse(input);
        } catch {
          return notOk('sourceCode is not a valid standard JSON input');
        }
      }
      try {
        const req = parseVerificationRequest({
          address: address as Hex,
          input,
          contractName: p.contractname,
          compilerVersion: p.compilerversion,
          // Etherscan spells it constructorArguements; the correct spelling is taken as well.
          constructorArguments: p.constructorArguements ?? p.constructorArguments,
        });
        // The answer is the GUID; the outcome is read with checkverifystatus, as on Etherscan.
        const { record } = await verifier.submit(req);
        return ok(record.guid);
      } catch (err) {
        if (err instanceof NoContractCodeError) return notOk(ETHERSCAN_TEXT.noCode(err.address));
        if (err instanceof AlreadyVerifiedError) return notOk(ETHERSCAN_TEXT.alreadyVerified);
        if (err instanceof ExplorerError) return notOk(err.message);
        throw err;
      }
    }
    case 'checkverifystatus': {
      const guid = text(p.guid);
      const record = guid ? verifier.verification(guid) : undefined;
      if (!record) return notOk(ETHERSCAN_TEXT.unknownGuid);
      if (record.status === 'pass') return ok(ETHERSCAN_TEXT.pass);
      return notOk(record.status === 'pending' ? ETHERSCAN_TEXT.pending : ETHERSCAN_TEXT.fail);
    }
    default:
      return notOk(ETHERSCAN_TEXT.badAction);
  }
}

/** Answers one request's parameters (query and body merged). */
export async function etherscanAnswer(p: Record<string, unknown>, services: ExplorerServices): Promise<EtherscanReply> {
  const chainId = text(p.chainid);
  if (chainId !== undefined && chainId !== String(services.node.config.chainId)) {
    return notOk(`Missing or unsupported chainid parameter (this node serves chain ${services.node.config.chainId})`);
  }
  if (text(p.module) !== 'contract') return notOk(ETHERSCAN_TEXT.badModule);
  return contractAction(text(p.action), p, services);
}

/** Adds GET and POST /api to the explorer's root router (for startExplorerServer's `rootRoutes`). */
export function etherscanRoutes(services: ExplorerServices): (root: Router) => void {
  const handle = async (ctx: Context) => {
    let reply: EtherscanReply;
    try {
      await services.access.admit(ctx, ctx.method === 'POST' ? POST_ROUTE : GET_ROUTE);
      const params: Record<string, unknown> = Object.fromEntries(new URLSearchParams(ctx.querystring));
      if (ctx.method === 'POST') Object.assign(params, await readBody(ctx));
      reply = await etherscanAnswer(params, services);
    } catch (err) {
      if (!(err instanceof ExplorerError)) throw err;
      // Limits (401, 413, 429) keep their HTTP status and headers; the body keeps Etherscan's shape.
      if (err.status === 401 || err.status === 413 || err.status === 429) {
        ctx.status = err.status;
        for (const [k, v] of Object.entries(err.headers)) ctx.set(k, v);
      }
      reply = notOk(err.message);
    }
    ctx.type = 'application/json';
    ctx.body = toJson(reply);
  };
  return (root) => {
    root.get(ETHERSCAN_PATH, handle);
    root.post(ETHERSCAN_PATH, handle);
  };
}
