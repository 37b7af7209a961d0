// The status code a GET of `url` answers, or 0 when nothing answers within `timeoutMs` (the demo and
// the README-commands check use it to see that the service and VS Code are up).
const http = require('node:http');

function httpStatus(url, timeoutMs) {
  return new Promise((resolve) => {
    const req = http.get(url, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.on('error', () => resolve(0));
    req.setTimeout(timeoutMs, () => req.destroy());
  });
}

module.exports = { httpStatus };
