/**
 * `npx tsx bench/grpc-floor.ts`: what one unary call costs grpc-js itself on this machine, with nothing of Tributary in it
 * — a server whose handler answers a fixed 300-byte message (no protobuf, no database, no auth), loaded like the bench's
 * `grpc-get` (one HTTP/2 connection, 50 calls in flight, an `authorization` metadata entry), CPU per call of the server
 * process. It is the floor under `grpc-get`: the userExample GetByID cannot cost less than this plus the repository read
 * the bare baseline also makes (bench/README.md, "What remains").
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';

const identity = (value: Buffer) => value;
const DEFINITION: grpc.ServiceDefinition = {
  Get: {
    path: '/bench.Floor/Get',
    requestStream: false,
    responseStream: false,
    requestSerialize: identity,
    requestDeserialize: identity,
    responseSerialize: identity,
    responseDeserialize: identity,
  },
};

const IN_FLIGHT = 50;
const WARMUP_MS = 2_000;
const MEASURE_MS = 8_000;

/** The server process: reports its port, then its CPU time (µs) between "start" and "stop". */
function serve(): void {
  const reply = Buffer.alloc(300, 7);
  // The same server options as the userExample server's hot path: channelz off.
  const server = new grpc.Server({ 'grpc.enable_channelz': 0 });
  server.addService(DEFINITION, {
    Get: (call: grpc.ServerUnaryCall<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>) => {
      call.metadata.get('authorization');
      callback(null, reply);
    },
  });
  server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, port) => {
    if (error) throw error;
    let started: NodeJS.CpuUsage | undefined;
    process.on('message', (message) => {
      if (message === 'start') started = process.cpuUsage();
      if (message === 'stop') {
        const used = process.cpuUsage(started);
        process.send!(used.user + used.system);
      }
    });
    process.send!({ port });
  });
}

async function measure(): Promise<void> {
  const child = fork(fileURLToPath(import.meta.url), ['server'], { execArgv: process.execArgv });
  const port = await new Promise<number>((resolve) => child.once('message', (message) => resolve((message as { port: number }).port)));
  const Client = grpc.makeGenericClientConstructor(DEFINITION, 'Floor');
  const client = new Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  const metadata = new grpc.Metadata();
  metadata.set('authorization', `Bearer ${'x'.repeat(150)}`);
  const request = Buffer.alloc(6, 1);
  const get = (
    client as unknown as { Get: (r: Buffer, m: grpc.Metadata, o: grpc.CallOptions, cb: (e: Error | null) => void) => void }
  ).Get.bind(client);
  const call = () =>
    new Promise<void>((resolve, reject) =>
      get(request, metadata, { deadline: Date.now() + 30_000 }, (error) => (error ? reject(error) : resolve())),
    );
  const stopAt = Date.now() + WARMUP_MS + MEASURE_MS + 500;
  let measuring = false;
  let calls = 0;
  const workers = Array.from({ length: IN_FLIGHT }, async () => {
    while (Date.now() < stopAt) {
      await call();
      if (measuring) calls++;
    }
  });
  await new Promise((resolve) => setTimeout(resolve, WARMUP_MS));
  measuring = true;
  child.send('start');
  await new Promise((resolve) => setTimeout(resolve, MEASURE_MS));
  measuring = false;
  child.send('stop');
  const cpuMicros = await new Promise<number>((resolve) => child.once('message', (message) => resolve(message as number)));
  await Promise.all(workers);
  client.close();
  child.kill();
  console.log(
    `grpc-js unary floor: ${calls} calls in ${MEASURE_MS / 1000} s, ${(calls / (MEASURE_MS / 1000)).toFixed(0)} calls/s, server ${(cpuMicros / calls).toFixed(1)} µs CPU per call`,
  );
}

if (process.argv[2] === 'server') serve();
else await measure();
