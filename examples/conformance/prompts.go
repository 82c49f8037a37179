package main

// The prompt of scenario non-tool-request, and a resource template that
// asks the same way (no scenario calls it; the Go tests do): prompts/get
// and resources/read answered with input_required results, as tools/call.

// PromptContext asks what context a prompt should use.
type PromptContext struct {
	Context string `elicit:"context,required"`
}

// Prompt asks what context to use, then writes its messages (scenario
// non-tool-request).
//
//elicit:prompt test_input_required_result_prompt
type Prompt struct {
	UserContext PromptContext `elicit:"user_context,message=What context should the prompt use?"`
}

// Notes are the notes of one id, asking which context first.
//
//elicit:resource test://notes/{id} text/plain
type Notes struct {
	UserContext PromptContext `elicit:"user_context,message=Which context are the notes for?"`
}
