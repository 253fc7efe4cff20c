# Python source of `_airlock_network`: HTTP for `http.client` and so for `urllib.request`
# through the host's network path (docs/network.md), like curl. The interpreter has no
# sockets; a connection here is a stand-in socket that collects the request http.client
# writes, hands it to the host as one request (the host's policy decides, the host
# performs it, following no redirects itself so urllib sees them), and serves the answer
# back as an HTTP/1.1 response with a Content-Length. A refused request raises
# ConnectionRefusedError whose message names the policy.

def _airlock_network_module():
    import sys, types, io, errno
    airlock = sys.modules['_airlock']
    module = types.ModuleType('_airlock_network')
    FAILURE_ERRORS = {'refused': ConnectionRefusedError, 'resolve': OSError, 'timeout': TimeoutError}
    DROP_HEADERS = {'transfer-encoding', 'content-length', 'connection', 'content-encoding'}

    def perform(scheme, host, port, raw, timeout):
        head, _, body = raw.partition(b'\r\n\r\n')
        lines = head.decode('latin-1').split('\r\n')
        method, target, _ = (lines[0].split(' ', 2) + ['', ''])[:3]
        headers = []
        chunked = False
        for line in lines[1:]:
            name, _, value = line.partition(':')
            value = value.strip()
            if name.lower() == 'transfer-encoding' and 'chunked' in value.lower():
                chunked = True
                continue
            if name.lower() in ('host', 'connection', 'content-length', 'accept-encoding'):
                continue
            headers.append([name, value])
        if chunked:
            body = dechunk(body)
        default = 443 if scheme == 'https' else 80
        authority = host if port in (None, default) else '%s:%d' % (host, port)
        if ':' in host and not host.startswith('['):
            authority = '[%s]' % host if port in (None, default) else '[%s]:%d' % (host, port)
        url = target if target.startswith(('http://', 'https://')) else '%s://%s%s' % (scheme, authority, target)
        request = {'method': method, 'url': url, 'headers': headers, 'followRedirects': False,
                   'timeoutMs': int(timeout * 1000) if timeout else 0}
        handle = airlock.value({'op': 'netRequest', 'request': request}, body if body else None)
        try:
            answer = airlock.value({'op': 'netResponse', 'handle': handle})
            if not answer.get('ok'):
                failure = answer.get('failure', 'failed')
                error = FAILURE_ERRORS.get(failure, OSError)
                code = errno.ECONNREFUSED if failure == 'refused' else errno.ETIMEDOUT if failure == 'timeout' else errno.EIO
                raise error(code, answer.get('message') or failure)
            parts = []
            while True:
                _, data = airlock.call({'op': 'netRead', 'handle': handle, 'max': 1 << 20})
                if not data:
                    break
                parts.append(data)
        finally:
            try:
                airlock.value({'op': 'netClose', 'handle': handle})
            except OSError:
                pass
        content = b''.join(parts)
        out = ['HTTP/1.1 %d %s' % (answer['status'], answer.get('statusText') or '')]
        for name, value in answer.get('headers', []):
            if name.lower() not in DROP_HEADERS:
                out.append('%s: %s' % (name, value))
        out.append('Content-Length: %d' % len(content))
        out.append('Connection: close')
        return ('\r\n'.join(out) + '\r\n\r\n').encode('latin-1') + (b'' if method == 'HEAD' else content)

    def dechunk(data):
        out = []
        while data:
            size_line, _, data = data.partition(b'\r\n')
            size = int(size_line.split(b';')[0] or b'0', 16)
            if size == 0:
                break
            out.append(data[:size])
            data = data[size + 2:]
        return b''.join(out)

    class HostSocket:
        """What http.client sees as its socket: collects the request, answers from the host."""

        def __init__(self, scheme, host, port, timeout):
            self.scheme, self.host, self.port, self.timeout = scheme, host, port, timeout
            self.sent = bytearray()
            self.response = None

        def sendall(self, data):
            if self.response is not None:
                self.sent = bytearray()
                self.response = None
            self.sent += bytes(data)

        send = sendall

        def fetch(self):
            if self.response is None:
                self.response = perform(self.scheme, self.host, self.port, bytes(self.sent), self.timeout)
            return self.response

        def makefile(self, mode='rb', buffering=None, **ignored):
            return io.BufferedReader(io.BytesIO(self.fetch()))

        def setsockopt(self, *args):
            pass

        def settimeout(self, timeout):
            self.timeout = timeout

        def close(self):
            pass

        def shutdown(self, how):
            pass

    def install():
        import http.client
        timeout_default = getattr(__import__('socket'), '_GLOBAL_DEFAULT_TIMEOUT', None)

        def seconds(value):
            return None if value is timeout_default else value

        class HTTPConnection(http.client.HTTPConnection):
            scheme = 'http'

            def connect(self):
                host, port = (self._tunnel_host, self._tunnel_port) if self._tunnel_host else (self.host, self.port)
                self.sock = HostSocket(self.scheme, host, port, seconds(self.timeout))

            def request(self, *args, **kwargs):
                # A whole request is known here: ask the host now, so that a refusal is
                # raised where a failed connect would be (urllib turns it into URLError).
                super().request(*args, **kwargs)
                if isinstance(self.sock, HostSocket):
                    self.sock.fetch()

            def getresponse(self):
                # The host answers here, before http.client builds its response object,
                # so a refusal is a clean exception.
                if isinstance(self.sock, HostSocket):
                    self.sock.fetch()
                return super().getresponse()

        class HTTPSConnection(HTTPConnection):
            scheme = 'https'
            default_port = 443

            def __init__(self, host, port=None, *args, context=None, **kwargs):
                kwargs.pop('key_file', None)
                kwargs.pop('cert_file', None)
                super().__init__(host, port, *args, **kwargs)

        class HostTLS:
            # TLS is the host's (it verifies certificates); urllib only sets options on this.
            check_hostname = True
            post_handshake_auth = None

            def set_alpn_protocols(self, protocols):
                pass

        http.client.HTTPConnection = HTTPConnection
        http.client.HTTPSConnection = HTTPSConnection
        http.client._create_https_context = lambda version: HostTLS()
        if 'HTTPSConnection' not in http.client.__all__:
            http.client.__all__.append('HTTPSConnection')

    module.install = install
    module.perform = perform
    sys.modules['_airlock_network'] = module

_airlock_network_module()
del _airlock_network_module
