/** Inline CSS and JS of the console (embedded, like Pushgateway's vfsgen assets; nothing is fetched from a CDN). */

export const CONSOLE_STYLE = `
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
header{background:#243447;color:#fff;padding:.6rem 1.2rem;display:flex;align-items:center;gap:2rem}
header h1{font-size:1.2rem;margin:0}nav a{color:#cfe0f5;margin-right:1rem;text-decoration:none}nav a.active{color:#fff;font-weight:600}
main{padding:1rem 1.2rem}.panel{display:none}.panel.active{display:block}
.toolbar{display:flex;gap:.8rem;align-items:center;margin-bottom:.8rem}
.group{background:#fff;border:1px solid #d8dde6;border-radius:4px;margin-bottom:.5rem;padding:.4rem .8rem}
.group summary{cursor:pointer;display:flex;gap:1rem;align-items:center;flex-wrap:wrap}
.label{background:#e8eef7;border-radius:3px;padding:0 .3rem;font-family:monospace;font-size:.85rem}
.meta{font-size:.85rem;color:#566}.meta.failed{color:#b3261e;font-weight:600}
.family h4{margin:.8rem 0 .2rem;font-family:monospace}.type{font-size:.75rem;color:#566;font-family:system-ui}
.help{margin:.1rem 0 .3rem;color:#445;font-size:.9rem}.pushed{font-size:.75rem;color:#566;font-family:system-ui;margin-left:.6rem}
pre{background:#fff;border:1px solid #d8dde6;padding:.5rem;overflow-x:auto}
table{border-collapse:collapse;width:100%;background:#fff}td,th{border:1px solid #e3e6ea;padding:.2rem .4rem;text-align:left;font-size:.85rem;vertical-align:top}
td.value{font-family:monospace}button{cursor:pointer}.delete-group,#delete-all{color:#b3261e}
#message{min-height:1.2rem;color:#b3261e}
`;

export const CONSOLE_SCRIPT = `
(function(){
  var prefix=document.body.getAttribute('data-prefix')||'';
  function show(tab){
    document.querySelectorAll('.panel').forEach(function(p){p.classList.toggle('active',p.id===tab)});
    document.querySelectorAll('.tab').forEach(function(a){a.classList.toggle('active',a.getAttribute('data-tab')===tab)});
  }
  function current(){return location.hash==='#status'?'status':location.hash==='#help'?'help':'metrics'}
  window.addEventListener('hashchange',function(){show(current())});
  show(current());
  function fail(text){document.getElementById('message').textContent=text}
  document.querySelectorAll('.delete-group').forEach(function(b){
    b.addEventListener('click',function(ev){
      ev.preventDefault();
      if(!confirm('Delete this group?'))return;
      fetch(prefix+'/metrics/'+b.getAttribute('data-path'),{method:'DELETE'}).then(function(r){
        if(r.status===202)location.reload();else r.text().then(function(t){fail('Delete failed: '+r.status+' '+t)});
      },function(e){fail('Delete failed: '+e)});
    });
  });
  var all=document.getElementById('delete-all');
  if(all)all.addEventListener('click',function(){
    if(!confirm('Delete ALL groups?'))return;
    fetch(prefix+'/api/v1/admin/wipe',{method:'PUT'}).then(function(r){
      if(r.status===202)location.reload();else r.text().then(function(t){fail('Wipe failed: '+r.status+' '+t)});
    },function(e){fail('Wipe failed: '+e)});
  });
  var expand=document.getElementById('expand-all');
  if(expand)expand.addEventListener('click',function(){
    var open=expand.textContent==='Expand all';
    document.querySelectorAll('details.group').forEach(function(d){d.open=open});
    expand.textContent=open?'Collapse all':'Expand all';
  });
})();
`;
