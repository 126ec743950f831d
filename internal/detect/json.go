package detect

import "bytes"

// JSON formats other than OTLP. Each is told apart by keys and shapes only
// it has, never by one key: speedscope, V8's .cpuprofile and the formats
// pprofx recognises without reading them.
const (
	// speedscope's file format (https://www.speedscope.app/file-format-schema.json),
	// as speedscope, py-spy, rbspy and pprofx write it.
	Speedscope Format = "speedscope"
	// V8's CPU profile (node --cpu-prof, Chrome DevTools' .cpuprofile).
	CPUProfile Format = "cpuprofile"
	// Recognised, not read.
	TraceEventJSON Format = "trace-event-json"
	StackprofJSON  Format = "stackprof-json"
	FirefoxProfile Format = "firefox-profile"
)

// The object key paths the JSON rules look at: keys of nested objects
// joined by '.', arrays left out ("nodes.callFrame" is the callFrame key
// of an object in the nodes array).
const (
	kResourceProfiles = iota
	kResourceProfilesSnake
	kDictionary
	kSchema
	kSharedFrames
	kProfiles
	kProfilesType
	kNodes
	kNodesID
	kNodesCallFrame
	kNodesCallFrameName
	kSamples
	kTimeDeltas
	kStartTime
	kTraceEvents
	kTraceEventsPh
	kPh
	kTs
	kPid
	kVersion
	kMode
	kInterval
	kFrames
	kRaw
	kMetaInterval
	kMetaStartTime
	kMetaProduct
	kMetaPreprocessed
	numKeys
)

var jsonPaths = [numKeys][]string{
	kResourceProfiles:      {"resourceProfiles"},
	kResourceProfilesSnake: {"resource_profiles"},
	kDictionary:            {"dictionary"},
	kSchema:                {"$schema"},
	kSharedFrames:          {"shared", "frames"},
	kProfiles:              {"profiles"},
	kProfilesType:          {"profiles", "type"},
	kNodes:                 {"nodes"},
	kNodesID:               {"nodes", "id"},
	kNodesCallFrame:        {"nodes", "callFrame"},
	kNodesCallFrameName:    {"nodes", "callFrame", "functionName"},
	kSamples:               {"samples"},
	kTimeDeltas:            {"timeDeltas"},
	kStartTime:             {"startTime"},
	kTraceEvents:           {"traceEvents"},
	kTraceEventsPh:         {"traceEvents", "ph"},
	kPh:                    {"ph"},
	kTs:                    {"ts"},
	kPid:                   {"pid"},
	kVersion:               {"version"},
	kMode:                  {"mode"},
	kInterval:              {"interval"},
	kFrames:                {"frames"},
	kRaw:                   {"raw"},
	kMetaInterval:          {"meta", "interval"},
	kMetaStartTime:         {"meta", "startTime"},
	kMetaProduct:           {"meta", "product"},
	kMetaPreprocessed:      {"meta", "preprocessedProfileVersion"},
}

// jsonShape is what scanJSON saw of a JSON head.
type jsonShape struct {
	array  bool   // the document is an array
	keys   uint64 // bit k set: path k was seen
	schema []byte // the value of the top-level "$schema", when a string
}

func (s *jsonShape) has(k int) bool { return s.keys&(1<<k) != 0 }

// sniffJSONFormat tells the JSON formats apart; ok is false when head is
// not a JSON object or array, or is one no rule below names.
func sniffJSONFormat(head []byte) (Format, bool) {
	t := bytes.TrimLeft(head, " \t\r\n")
	if len(t) == 0 || t[0] != '{' && t[0] != '[' {
		return "", false
	}
	s := scanJSON(t)
	switch {
	case !s.array && (s.has(kResourceProfiles) || s.has(kResourceProfilesSnake) || s.has(kDictionary)):
		if f := jsonDialect(head); f != "" {
			return f, true
		}
		return PprofExtendedJSON, true
	case !s.array && (bytes.Contains(s.schema, []byte("speedscope")) ||
		s.has(kSharedFrames) && (s.has(kProfiles) || s.has(kProfilesType))):
		return Speedscope, true
	case !s.array && (s.has(kNodesCallFrame) && s.has(kNodesCallFrameName) && s.has(kNodesID) ||
		s.has(kNodes) && s.has(kSamples) && s.has(kTimeDeltas)):
		return CPUProfile, true
	case !s.array && s.has(kTraceEventsPh), s.array && s.has(kPh) && (s.has(kTs) || s.has(kPid)):
		return TraceEventJSON, true
	case !s.array && s.has(kVersion) && s.has(kMode) && s.has(kInterval) && (s.has(kFrames) || s.has(kRaw)):
		return StackprofJSON, true
	case !s.array && s.has(kMetaInterval) && s.has(kMetaStartTime) && (s.has(kMetaProduct) || s.has(kMetaPreprocessed)):
		return FirefoxProfile, true
	}
	return "", false
}

// scanJSON walks a JSON head, which may be cut anywhere, and records the
// key paths of jsonPaths it holds (object keys at most three deep).
// It allocates nothing: the head is at most HeadSize bytes.
func scanJSON(b []byte) jsonShape {
	var s jsonShape
	const maxDepth = 3
	type frame struct {
		object  bool
		wantKey bool
		key     []byte
	}
	var stack [64]frame
	depth := 0 // frames in use; deeper ones are counted, not kept
	objects := 0
	var path [maxDepth][]byte // keys of the enclosing objects
	s.array = b[0] == '['
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch c {
		case '{', '[':
			if depth < len(stack) {
				stack[depth] = frame{object: c == '{', wantKey: c == '{'}
			}
			depth++
		case '}', ']':
			if depth > 0 {
				depth--
			}
		case ',':
			if depth > 0 && depth <= len(stack) && stack[depth-1].object {
				stack[depth-1].wantKey = true
			}
		case ':':
			if depth > 0 && depth <= len(stack) {
				stack[depth-1].wantKey = false
			}
		case '"':
			j := i + 1
			for j < len(b) && b[j] != '"' {
				if b[j] == '\\' {
					j++
				}
				j++
			}
			str := b[i+1 : min(j, len(b))]
			i = j
			if depth == 0 || depth > len(stack) {
				continue
			}
			top := &stack[depth-1]
			if top.object && top.wantKey {
				top.key = str
				// The path: the keys of the object frames from the root.
				objects = 0
				deep := false
				for f := 0; f < depth; f++ {
					if !stack[f].object {
						continue
					}
					if objects == maxDepth {
						deep = true
						break
					}
					path[objects] = stack[f].key
					objects++
				}
				if !deep {
					s.keys |= matchPath(path[:objects])
				}
			} else if !top.wantKey && top.object && depth == 1 && string(top.key) == "$schema" {
				s.schema = str
			}
		}
	}
	return s
}

// matchPath returns the bit of the jsonPaths entry equal to path, or 0.
func matchPath(path [][]byte) uint64 {
	for k, want := range jsonPaths {
		if len(want) != len(path) {
			continue
		}
		eq := true
		for i := range want {
			if string(path[i]) != want[i] {
				eq = false
				break
			}
		}
		if eq {
			return 1 << k
		}
	}
	return 0
}
