package deploy

import (
	"bufio"
	"encoding/json"
	"strings"
	"testing"
)

// instruction is one Dockerfile instruction, continuation lines joined.
type instruction struct {
	cmd  string // upper case: FROM, RUN, ENV, ...
	args string
}

// dockerfile returns the instructions of the repository's Dockerfile
// after its last FROM (the runtime image), and the build-stage RUN that
// builds roost.
func dockerfile(t *testing.T) (final []instruction, build string) {
	t.Helper()
	var all []instruction
	sc := bufio.NewScanner(strings.NewReader(string(readRepoFile(t, "Dockerfile"))))
	var cur string
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cur += strings.TrimSuffix(line, "\\") + " "
		if strings.HasSuffix(line, "\\") {
			continue
		}
		cmd, args, _ := strings.Cut(strings.TrimSpace(cur), " ")
		all = append(all, instruction{strings.ToUpper(cmd), strings.TrimSpace(args)})
		cur = ""
	}
	for _, in := range all {
		switch {
		case in.cmd == "FROM":
			final = nil
		case in.cmd == "RUN" && strings.Contains(in.args, "make static"):
			build = in.args
		}
		final = append(final, in)
	}
	return final, build
}

// image is what the Dockerfile's runtime stage declares.
type image struct {
	from, user, expose, stop string
	env                      map[string]string
	entrypoint, cmd, health  []string
	copied                   map[string]string // destination: source, for COPY --from
}

func parseImage(t *testing.T, final []instruction) image {
	t.Helper()
	im := image{env: map[string]string{}, copied: map[string]string{}}
	execForm := func(in instruction, s string) []string {
		var v []string
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			t.Fatalf("Dockerfile %s %s: want the exec (JSON) form: %v", in.cmd, in.args, err)
		}
		return v
	}
	for _, in := range final {
		switch in.cmd {
		case "FROM":
			im.from = in.args
		case "USER":
			im.user = in.args
		case "EXPOSE":
			im.expose = in.args
		case "STOPSIGNAL":
			im.stop = in.args
		case "ENV":
			for _, kv := range strings.Fields(in.args) {
				k, v, _ := strings.Cut(kv, "=")
				im.env[k] = v
			}
		case "ENTRYPOINT":
			im.entrypoint = execForm(in, in.args)
		case "CMD":
			im.cmd = execForm(in, in.args)
		case "HEALTHCHECK":
			_, cmd, ok := strings.Cut(in.args, " CMD ")
			if !ok {
				t.Fatalf("HEALTHCHECK %s: no CMD", in.args)
			}
			im.health = execForm(in, cmd)
		case "COPY":
			if f := strings.Fields(in.args); len(f) == 3 && strings.HasPrefix(f[0], "--from=") {
				im.copied[f[2]] = f[1]
			}
		}
	}
	return im
}
