package gen

// htmlTemplate is the page of renderHTML.
const htmlTemplate = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="generator" content="elicitgen docs">
<title>What the person is asked</title>
<style>
body{font:15px/1.45 system-ui,sans-serif;margin:2em auto;max-width:60em;padding:0 1em;color:#1b1b1b}
h2{border-bottom:1px solid #ccc}
.step{border:1px solid #bbb;border-radius:8px;padding:1em;margin:1em 0;background:#fafafa}
.form{background:#fff;border:1px solid #999;border-radius:6px;padding:1em;max-width:32em}
.form .msg{font-weight:600;margin:0 0 .8em}
.field{margin:.6em 0}
.field>label,.field legend{display:block;font-weight:500}
.field>input[type=checkbox]+label{display:inline}
fieldset{border:0;padding:0;margin:0}
.desc{color:#555;font-size:90%}
.req{color:#b00}
.buttons{margin-top:1em}
.link{display:inline-block;padding:.3em .8em;border:1px solid #36c;border-radius:4px;color:#36c}
table{border-collapse:collapse}
td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left;vertical-align:top}
code{background:#eee;padding:0 .2em}
</style>
</head>
<body>
<h1>What the person is asked</h1>
{{- if not .Packages}}
<p>No tool, prompt or resource is declared.</p>
{{- end}}
{{- range $p, $pkg := .Packages}}
<h2>Package <code>{{$pkg.Path}}</code></h2>
{{- range $d, $decl := $pkg.Declarations}}
<section class="decl">
<h3>{{$decl.Kind}} <code>{{$decl.Name}}</code></h3>
{{- if $decl.Description}}
<p>{{$decl.Description}}</p>
{{- end}}
{{- if $decl.Arguments}}
<table>
<tr><th>argument</th><th>type</th><th>required</th><th>description</th></tr>
{{- range $decl.Arguments}}
<tr><td><code>{{.Name}}</code></td><td>{{.Type}}</td><td>{{yes .Required}}</td><td>{{.Description}}{{if .From}} (answers <code>{{.From}}</code>){{end}}</td></tr>
{{- end}}
</table>
{{- end}}
{{- range $s, $step := $decl.Steps}}
<div class="step" id="step-{{$p}}-{{$d}}-{{$s}}">
<h4>Step {{inc $s}}: <code>{{$step.Key}}</code> ({{$step.Mode}})</h4>
<p>Asked: {{asked $step}}.{{if $step.Once}} Single use (<code>once</code>).{{end}}{{if $step.Confirm}} Only <code>{{$step.Confirm}}</code> = true passes.{{end}}</p>
{{- if eq $step.Mode "url"}}
<div class="form">
<p class="msg">{{if $step.MessageByHandler}}(message set by the handler){{else}}{{$step.Message}}{{end}}</p>
<span class="link">Open the link (set by the handler)</span>
<div class="buttons"><button type="button">Done</button> <button type="button">Decline</button></div>
</div>
{{- else}}
<form class="form">
<p class="msg">{{if $step.MessageByHandler}}(message set by the handler){{else}}{{$step.Message}}{{end}}</p>
{{- range $step.Fields}}
{{- $id := id $p $d $s .Property}}
{{- $f := .}}
<div class="field" data-property="{{.Property}}">
{{- if eq .Type "boolean"}}
<input type="checkbox" id="{{$id}}" name="{{.Property}}"{{if isDef . "true"}} checked{{end}}> <label for="{{$id}}">{{.Title}}{{if .Required}} <span class="req">*</span>{{end}}</label>
{{- else if eq .Type "enum"}}
{{- if radios .}}
<fieldset id="{{$id}}"><legend>{{.Title}}{{if .Required}} <span class="req">*</span>{{end}}</legend>
{{- range $i, $e := .Enum}}
<input type="radio" id="{{$id}}-{{$i}}" name="{{$f.Property}}" value="{{$e.Value}}"{{if isDef $f $e.Value}} checked{{end}}{{if $f.Required}} required{{end}}> <label for="{{$id}}-{{$i}}">{{label $e}}</label>
{{- end}}
</fieldset>
{{- else}}
<label for="{{$id}}">{{.Title}}{{if .Required}} <span class="req">*</span>{{end}}</label>
<select id="{{$id}}" name="{{.Property}}"{{if .Required}} required{{end}}>
{{- range .Enum}}
<option value="{{.Value}}"{{if isDef $f .Value}} selected{{end}}>{{label .}}</option>
{{- end}}
</select>
{{- end}}
{{- else if eq .Type "multi-select"}}
<fieldset id="{{$id}}"><legend>{{.Title}}{{if .Required}} <span class="req">*</span>{{end}}</legend>
{{- range $i, $e := .Enum}}
<input type="checkbox" id="{{$id}}-{{$i}}" name="{{$f.Property}}" value="{{$e.Value}}"{{if inList $f $e.Value}} checked{{end}}> <label for="{{$id}}-{{$i}}">{{label $e}}</label>
{{- end}}
</fieldset>
{{- else}}
<label for="{{$id}}">{{.Title}}{{if .Required}} <span class="req">*</span>{{end}}</label>
<input type="{{inputType .}}" id="{{$id}}" name="{{.Property}}"{{if eq .Type "integer"}} step="1"{{else if eq .Type "number"}} step="any"{{end}}{{if .Minimum}} min="{{num .Minimum}}"{{end}}{{if .Maximum}} max="{{num .Maximum}}"{{end}}{{if .MinLength}} minlength="{{.MinLength}}"{{end}}{{if .MaxLength}} maxlength="{{.MaxLength}}"{{end}}{{if .Default}} value="{{.Default}}"{{end}}{{if .Required}} required{{end}}>
{{- end}}
{{- if .Description}}
<div class="desc">{{.Description}}</div>
{{- end}}
{{- if bounds .}}
<div class="desc">{{bounds .}}</div>
{{- end}}
</div>
{{- end}}
<div class="buttons"><button type="submit">Accept</button> <button type="button">Decline</button> <button type="button">Cancel</button></div>
</form>
{{- end}}
<p>Without a person (<code>fallback={{$step.Fallback}}</code>): {{code $step.WithoutPerson}}</p>
<table class="hosts">
<tr><th>hosts</th><th>what they show</th></tr>
{{- range $step.Hosts}}
<tr><td>{{join .Hosts}}</td><td>{{code .Shows}}</td></tr>
{{- end}}
</table>
</div>
{{- end}}
</section>
{{- end}}
{{- end}}
</body>
</html>
`
