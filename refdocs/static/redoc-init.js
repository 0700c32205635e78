// Renders the page's document (data-spec) with Redoc.
import { init } from '/docs/static/vendor/redoc.standalone.js';

// Redoc's search probes for a worker by compiling a string, which
// script-src refuses (a reported violation); without Worker it builds its
// index in the page, which for documents of this size is quick.
window.Worker = undefined;

const el = document.getElementById('redoc');
el.textContent = '';
init(el.dataset.spec, {
  disableTelemetry: true, // the page talks to its own origin only
}, el);
