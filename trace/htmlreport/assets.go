package htmlreport

// css styles the page; it is inlined in <style>, so the page needs no
// other file.
const css = `
body{font:13px/1.4 system-ui,sans-serif;margin:16px;color:#222}
h1{font-size:18px}h2{font-size:15px;margin:18px 0 6px}h3{font-size:13px;margin:8px 0 4px}
div.runs{display:flex;flex-wrap:wrap;gap:0 48px}
pre.notes{background:#f6f6f6;padding:8px;overflow:auto;max-height:320px}
table.kv th{text-align:left;padding-right:12px;font-weight:600}
.good{color:#1a7f37}.bad{color:#c62828;font-weight:600}.cancelled{color:#8a6d00}
.help{color:#555}.cut{color:#8a4b00;background:#fff4e0;padding:4px}
.tl{display:flex;border:1px solid #ddd}
.tl .scroll{overflow-x:auto;flex:1}
svg text{font:11px system-ui,sans-serif}
text.lane{fill:#222}text.lane-worker{font-weight:600}text.lane-nursery{fill:#555}
line.tick{stroke:#eee}text.tick{fill:#888}
rect.slice{stroke:#0003;stroke-width:.5}
rect.blocked{fill:#bbb}
rect.nursery{fill:#d9c8f0;stroke:#7b5ea7;stroke-width:.5}
text.result{fill:#333}text.chanop{font-size:10px;fill:#000}
line.arrow{stroke-width:1.2}line.arrow.spawn{stroke:#1565c0}line.arrow.wake{stroke:#2e7d32}
marker path{fill:#555}
line.divergence{stroke:#d50000;stroke-width:2;stroke-dasharray:4 2}
text.divergence-label{fill:#d50000;font-weight:700}
.divergence-text{color:#d50000;font-weight:600}
table.ctx td{vertical-align:top}mark{background:#ffcdd2}
ul.tree,ul.tree ul{list-style:none;padding-left:18px}
span.task{border-left:6px solid;padding-left:4px}
span.nursery{color:#5e35b1;font-weight:600}span.mode{color:#777}
table.waits,table.grid{border-collapse:collapse}
table.waits td,table.waits th,table.grid td,table.grid th{border:1px solid #ddd;padding:3px 6px;text-align:left}
td.pass{background:#e6f4ea}td.fail{background:#fde0e0;color:#b71c1c;font-weight:600}td.none{color:#999}
rect.seeds-pass{fill:#c8e6c9}rect.seed-fail{fill:#d32f2f}table.strips th{text-align:left;font-weight:400;padding-right:8px}
svg.waitgraph{border:1px solid #eee;margin-top:8px}
.wait-node circle{fill:#fff;stroke:#555}.wait-node.task circle{fill:#ffe0b2}.wait-node.resource circle{fill:#e1f5fe}
line.wait-edge{stroke:#555;stroke-width:1.2}line.wait-edge.cycle{stroke:#d50000;stroke-width:2}
.wait-node.waker circle{fill:#e8f5e9}
`

// script zooms the timelines: it sets x (and width) of every element
// from its steps (data-a, data-b, data-s) at the chosen px per step. The
// page reads the same without it, at the initial scale.
const script = `
(function(){
var z=document.getElementById("zoom");document.body.setAttribute("data-script","ok");if(!z)return;
function apply(){var px=parseFloat(z.value);if(!(px>0))return;
document.querySelectorAll("svg.plot").forEach(function(s){s.setAttribute("width",Math.ceil(parseFloat(s.getAttribute("data-steps"))*px)+20);});
document.querySelectorAll("[data-a]").forEach(function(e){var a=parseFloat(e.getAttribute("data-a"));
if(e.tagName==="rect"){var b=parseFloat(e.getAttribute("data-b"));e.setAttribute("x",a*px);e.setAttribute("width",Math.max((b-a)*px,1));}
else{e.setAttribute("x",a*px+2);}});
document.querySelectorAll("[data-s]").forEach(function(e){var x=parseFloat(e.getAttribute("data-s"))*px;e.setAttribute("x1",x);e.setAttribute("x2",x);});}
z.addEventListener("input",apply);
})();
`
