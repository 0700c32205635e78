package lbtest

import (
	"os"
	"testing"
)

// Nginx starts nginx with servers (the http block's content; a listen on
// Listen) and returns the address it listens on. Its pid, logs and
// temporary files stay in the test's temp dir.
func Nginx(t testing.TB, servers string) string {
	t.Helper()
	bin := binary(t, "nginx", "nginx")
	addr := freeAddr(t)
	dir := t.TempDir()
	user := ""
	if os.Geteuid() == 0 { // its workers would otherwise be nobody, shut out of the temp dir
		user = "user root;\n"
	}
	cfg := writeConfig(t, dir, "nginx.conf", user+`daemon off;
master_process on;
worker_processes 1;
pid `+dir+`/nginx.pid;
error_log `+dir+`/error.log warn;
events { worker_connections 256; }
http {
	access_log off;
	client_body_temp_path `+dir+`/client_body;
	proxy_temp_path `+dir+`/proxy;
	fastcgi_temp_path `+dir+`/fastcgi;
	uwsgi_temp_path `+dir+`/uwsgi;
	scgi_temp_path `+dir+`/scgi;
`+servers+`
}
`, addr)
	start(t, []string{addr}, bin, "-p", dir, "-e", dir+"/error.log", "-c", cfg)
	return addr
}
