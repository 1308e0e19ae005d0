// Command gopher-bench times gopher-lua's bare VM on one Karmada customization script: the script is
// loaded once, its arguments are built as Lua tables once (the VM floor: no conversion per call), and the
// entry function is called N times. Input: a JSON file {"script", "function", "args": [...]}; output: one
// line "calls_per_second <n>". Built by bench/lua-compiled.bench.ts into a temporary folder.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"

	lua "github.com/yuin/gopher-lua"
)

type input struct {
	Script   string        `json:"script"`
	Function string        `json:"function"`
	Args     []interface{} `json:"args"`
	NResults int           `json:"nresults"`
}

func toLua(L *lua.LState, v interface{}) lua.LValue {
	switch x := v.(type) {
	case nil:
		return lua.LNil
	case bool:
		return lua.LBool(x)
	case float64:
		return lua.LNumber(x)
	case string:
		return lua.LString(x)
	case []interface{}:
		t := L.NewTable()
		for _, el := range x {
			if el == nil {
				continue
			}
			t.Append(toLua(L, el))
		}
		return t
	case map[string]interface{}:
		t := L.NewTable()
		for k, el := range x {
			if el == nil {
				continue
			}
			t.RawSetString(k, toLua(L, el))
		}
		return t
	}
	return lua.LNil
}

func main() {
	file := flag.String("input", "", "JSON input file")
	seconds := flag.Float64("seconds", 1, "how long to run")
	flag.Parse()
	raw, err := os.ReadFile(*file)
	if err != nil {
		panic(err)
	}
	var in input
	if err := json.Unmarshal(raw, &in); err != nil {
		panic(err)
	}
	L := lua.NewState()
	defer L.Close()
	// The kube library is Karmada's Go code, not the VM: a stub so `require("kube")` loads.
	L.PreloadModule("kube", func(L *lua.LState) int {
		L.Push(L.NewTable())
		return 1
	})
	if err := L.DoString(in.Script); err != nil {
		panic(err)
	}
	fn := L.GetGlobal(in.Function)
	args := make([]lua.LValue, len(in.Args))
	for i, a := range in.Args {
		args[i] = toLua(L, a)
	}
	nres := in.NResults
	if nres == 0 {
		nres = 1
	}
	call := func() {
		if err := L.CallByParam(lua.P{Fn: fn, NRet: nres, Protect: true}, args...); err != nil {
			panic(err)
		}
		L.Pop(nres)
	}
	for i := 0; i < 2000; i++ {
		call()
	}
	deadline := time.Duration(*seconds * float64(time.Second))
	start := time.Now()
	n := 0
	for time.Since(start) < deadline {
		for i := 0; i < 1000; i++ {
			call()
		}
		n += 1000
	}
	fmt.Printf("calls_per_second %.0f\n", float64(n)/time.Since(start).Seconds())
}
