// tus-js-client in a process of its own, for tests where the client must keep writing while the server answers (in
// the test's own process the two share one event loop and take turns, which hides a connection closed too early).
// Arguments: the upload's URL, the Authorization header, the size of the body; resumes that upload with one PATCH of
// that many bytes and prints one JSON line: {"status", "body"} of the answer that failed or finished the upload, or
// {"error"} when no answer reached the client (EPIPE, ECONNRESET).
import * as tus from 'tus-js-client';

const [uploadUrl = '', authorization = '', size = '0'] = process.argv.slice(2);
const upload = new tus.Upload(Buffer.alloc(Number(size), 7), {
  uploadUrl,
  headers: { authorization },
  retryDelays: [],
  onError: (err) => {
    const response = (err as tus.DetailedError).originalResponse;
    const causing = (err as tus.DetailedError).causingError;
    const line = response
      ? { status: response.getStatus(), body: response.getBody() }
      : { error: String(causing ?? err.message) };
    process.stdout.write(`${JSON.stringify(line)}\n`);
  },
  onSuccess: ({ lastResponse }) => {
    process.stdout.write(`${JSON.stringify({ status: lastResponse.getStatus(), body: lastResponse.getBody() })}\n`);
  },
});
upload.start();
