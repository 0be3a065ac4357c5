// Preloaded into a `till` run (--import) by unsettled.test.ts: every connection opens a socket that never connects,
// never answers and holds nothing open, so the request's promise is never settled and the event loop runs empty.
import net from "node:net";
import { Duplex } from "node:stream";

const stalled = () => {
  const socket = new Duplex({ read() {}, write(_chunk, _encoding, done) { done(); } });
  return Object.assign(socket, { setNoDelay() {}, setKeepAlive() {}, setTimeout() {}, ref() {}, unref() {} });
};
net.connect = stalled;
net.createConnection = stalled;
