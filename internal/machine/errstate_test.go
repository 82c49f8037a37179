package machine

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// checkInvalidStateErr verifies err is exactly the opaque rejection error a
// client sees for a requestState the keyring refused.
func checkInvalidStateErr(tb testing.TB, err error) {
	tb.Helper()
	if err == nil {
		tb.Fatal("error is nil, want ErrInvalidState")
	}
	je, ok := err.(*jsonrpc.Error) // the SDK type-asserts, so it must be unwrapped
	if !ok {
		tb.Fatalf("error %T %v is not an unwrapped *jsonrpc.Error", err, err)
	}
	if je.Code != -32602 || je.Message != "invalid or expired requestState" || len(je.Data) != 0 {
		tb.Fatalf("error = {%d %q %s}, want {-32602 %q <nil>}", je.Code, je.Message, je.Data, "invalid or expired requestState")
	}
	if err != error(ErrInvalidState) || !IsInvalidState(err) {
		tb.Fatalf("error is not the shared ErrInvalidState value")
	}
}

func TestErrInvalidState(t *testing.T) {
	checkInvalidStateErr(t, ErrInvalidState)
	if !IsInvalidState(fmt.Errorf("wrapped: %w", ErrInvalidState)) {
		t.Error("IsInvalidState(wrapped) = false")
	}
	if IsInvalidState(nil) || IsInvalidState(errors.New("invalid or expired requestState")) ||
		IsInvalidState(&jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "other"}) ||
		IsInvalidState(&jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: ErrInvalidState.Message}) {
		t.Error("IsInvalidState accepts other errors")
	}
	wire, err := json.Marshal(ErrInvalidState)
	if err != nil || string(wire) != `{"code":-32602,"message":"invalid or expired requestState"}` {
		t.Errorf("wire form %s, %v", wire, err)
	}
}
