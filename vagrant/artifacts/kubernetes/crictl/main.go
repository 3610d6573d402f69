// Command crictl is hybrid-lab's minimal crictl for kubeadm 1.20, not cri-tools.
//
// kubeadm v1.20 refuses to run without a crictl on PATH and execs exactly these
// (cmd/kubeadm/app/util/runtime/runtime.go):
//
//	crictl -r ENDPOINT info          preflight: is the runtime up
//	crictl -r ENDPOINT pods -q       reset: the pod sandboxes to remove
//	crictl -r ENDPOINT stopp ID      reset
//	crictl -r ENDPOINT rmp ID        reset
//	crictl -r ENDPOINT pull IMAGE    preflight image pull (only for images missing)
//	crictl -r ENDPOINT inspecti IMAGE  preflight: is the image there (exit status only)
//
// For people: images, ps [-a], version, logs. It speaks the CRI v1alpha2 API over the
// endpoint's unix socket, built against the CRI API and gRPC vendored in Kubernetes v1.20.2.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"google.golang.org/grpc"
	pb "k8s.io/cri-api/pkg/apis/runtime/v1alpha2"
)

const (
	version         = "0.1.0"
	about           = "hybrid-lab minimal crictl for kubeadm 1.20, not cri-tools"
	defaultEndpoint = "unix:///run/containerd/containerd.sock"
)

type options struct {
	runtimeEndpoint string
	imageEndpoint   string
	timeout         time.Duration
}

func usage() {
	fmt.Fprintf(os.Stderr, `crictl %s: %s

Usage: crictl [-r ENDPOINT] [-i ENDPOINT] [-t TIMEOUT] [--config FILE] COMMAND [ARGS]

Commands (the ones kubeadm 1.20 runs, plus a few for people):
  info              runtime status and configuration as JSON
  version           client and runtime versions
  pods [-q]         pod sandboxes
  stopp ID...       stop pod sandboxes
  rmp ID...         remove pod sandboxes
  ps [-a] [-q]      containers (running only without -a)
  logs [--tail N] ID  a container's log
  images [-q]       images
  inspecti IMAGE... image status as JSON; exit status 1 when an image is missing
  pull IMAGE...     pull images

Settings: flags, else $CONTAINER_RUNTIME_ENDPOINT / $IMAGE_SERVICE_ENDPOINT, else the
config file (default /etc/crictl.yaml or $CRI_CONFIG_FILE: runtime-endpoint,
image-endpoint, timeout), else %s.
`, version, about, defaultEndpoint)
}

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	global := flag.NewFlagSet("crictl", flag.ContinueOnError)
	global.Usage = usage
	var runtimeEP, imageEP, configFile string
	var timeout time.Duration
	var showVersion, debug bool
	for _, name := range []string{"r", "runtime-endpoint"} {
		global.StringVar(&runtimeEP, name, "", "CRI runtime endpoint")
	}
	for _, name := range []string{"i", "image-endpoint"} {
		global.StringVar(&imageEP, name, "", "CRI image endpoint")
	}
	for _, name := range []string{"t", "timeout"} {
		global.DurationVar(&timeout, name, 0, "timeout of each call (pull: of connecting only)")
	}
	for _, name := range []string{"c", "config"} {
		global.StringVar(&configFile, name, "", "config file")
	}
	for _, name := range []string{"D", "debug"} {
		global.BoolVar(&debug, name, false, "ignored")
	}
	for _, name := range []string{"v", "version"} {
		global.BoolVar(&showVersion, name, false, "print the client version")
	}
	if err := global.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if showVersion {
		fmt.Printf("crictl version %s (%s)\n", version, about)
		return 0
	}
	rest := global.Args()
	if len(rest) == 0 || rest[0] == "help" || rest[0] == "--help" {
		usage()
		return 0
	}
	opts := resolveOptions(runtimeEP, imageEP, configFile, timeout)
	if err := dispatch(opts, rest[0], rest[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "crictl: %s: %v\n", rest[0], err)
		return 1
	}
	return 0
}

// resolveOptions applies flags, then environment, then the config file, then defaults.
func resolveOptions(runtimeEP, imageEP, configFile string, timeout time.Duration) options {
	if configFile == "" {
		configFile = os.Getenv("CRI_CONFIG_FILE")
	}
	if configFile == "" {
		configFile = "/etc/crictl.yaml"
	}
	conf := readConfig(configFile)
	first := func(values ...string) string {
		for _, v := range values {
			if v != "" {
				return v
			}
		}
		return ""
	}
	opts := options{
		runtimeEndpoint: first(runtimeEP, os.Getenv("CONTAINER_RUNTIME_ENDPOINT"), conf["runtime-endpoint"], defaultEndpoint),
		timeout:         timeout,
	}
	opts.imageEndpoint = first(imageEP, os.Getenv("IMAGE_SERVICE_ENDPOINT"), conf["image-endpoint"], opts.runtimeEndpoint)
	if opts.timeout == 0 {
		if d, err := time.ParseDuration(conf["timeout"] + "s"); err == nil && conf["timeout"] != "" {
			opts.timeout = d
		} else {
			opts.timeout = 10 * time.Second
		}
	}
	return opts
}

// readConfig reads the flat "key: value" lines of a crictl.yaml; a missing file is no error.
func readConfig(path string) map[string]string {
	conf := map[string]string{}
	f, err := os.Open(path)
	if err != nil {
		return conf
	}
	defer f.Close()
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		line := strings.TrimSpace(scanner.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if i := strings.Index(line, ":"); i > 0 {
			value := strings.Trim(strings.TrimSpace(line[i+1:]), `"'`)
			conf[strings.TrimSpace(line[:i])] = value
		}
	}
	return conf
}

func dial(endpoint string, timeout time.Duration) (*grpc.ClientConn, error) {
	path := endpoint
	switch {
	case strings.HasPrefix(endpoint, "unix://"):
		path = strings.TrimPrefix(endpoint, "unix://")
	case strings.Contains(endpoint, "://"):
		return nil, fmt.Errorf("endpoint %q: only unix sockets are supported", endpoint)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	conn, err := grpc.DialContext(ctx, path, grpc.WithInsecure(), grpc.WithBlock(),
		grpc.WithContextDialer(func(ctx context.Context, addr string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", addr)
		}),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(16*1024*1024)))
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", endpoint, err)
	}
	return conn, nil
}

func runtimeClient(opts options) (pb.RuntimeServiceClient, func(), error) {
	conn, err := dial(opts.runtimeEndpoint, opts.timeout)
	if err != nil {
		return nil, nil, err
	}
	return pb.NewRuntimeServiceClient(conn), func() { conn.Close() }, nil
}

func imageClient(opts options) (pb.ImageServiceClient, func(), error) {
	conn, err := dial(opts.imageEndpoint, opts.timeout)
	if err != nil {
		return nil, nil, err
	}
	return pb.NewImageServiceClient(conn), func() { conn.Close() }, nil
}

func printJSON(v interface{}) error {
	out, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	fmt.Println(string(out))
	return nil
}

func dispatch(opts options, command string, args []string) error {
	fs := flag.NewFlagSet(command, flag.ContinueOnError)
	quiet := fs.Bool("q", false, "only IDs")
	fs.BoolVar(quiet, "quiet", false, "only IDs")
	all := fs.Bool("a", false, "all containers, not only running ones")
	fs.BoolVar(all, "all", false, "all containers, not only running ones")
	tail := fs.Int("tail", -1, "only the last N lines")
	if err := fs.Parse(args); err != nil {
		return err
	}
	args = fs.Args()
	ctx, cancel := context.WithTimeout(context.Background(), opts.timeout)
	defer cancel()
	needArgs := func() error {
		if len(args) == 0 {
			return fmt.Errorf("needs at least one argument")
		}
		return nil
	}

	switch command {
	case "info", "version", "pods", "stopp", "rmp", "ps", "logs":
		client, done, err := runtimeClient(opts)
		if err != nil {
			return err
		}
		defer done()
		switch command {
		case "info":
			status, err := client.Status(ctx, &pb.StatusRequest{Verbose: true})
			if err != nil {
				return err
			}
			info := decodeInfo(status.Info)
			info["status"] = status.Status
			return printJSON(info)
		case "version":
			v, err := client.Version(ctx, &pb.VersionRequest{Version: "v1alpha2"})
			if err != nil {
				return err
			}
			fmt.Printf("Version:  %s\nRuntimeName:  %s\nRuntimeVersion:  %s\nRuntimeApiVersion:  %s\nClient:  crictl %s (%s)\n",
				v.Version, v.RuntimeName, v.RuntimeVersion, v.RuntimeApiVersion, version, about)
			return nil
		case "pods":
			return listPods(ctx, client, *quiet)
		case "stopp", "rmp":
			if err := needArgs(); err != nil {
				return err
			}
			for _, id := range args {
				if command == "stopp" {
					_, err = client.StopPodSandbox(ctx, &pb.StopPodSandboxRequest{PodSandboxId: id})
				} else {
					_, err = client.RemovePodSandbox(ctx, &pb.RemovePodSandboxRequest{PodSandboxId: id})
				}
				if err != nil {
					return fmt.Errorf("pod sandbox %s: %w", id, err)
				}
				if command == "stopp" {
					fmt.Printf("Stopped sandbox %s\n", id)
				} else {
					fmt.Printf("Removed sandbox %s\n", id)
				}
			}
			return nil
		case "ps":
			return listContainers(ctx, client, *all, *quiet)
		case "logs":
			if len(args) != 1 {
				return fmt.Errorf("needs one container ID")
			}
			return containerLogs(ctx, client, args[0], *tail)
		}
	case "images", "inspecti", "pull":
		client, done, err := imageClient(opts)
		if err != nil {
			return err
		}
		defer done()
		switch command {
		case "images":
			return listImages(ctx, client, *quiet)
		case "inspecti":
			if err := needArgs(); err != nil {
				return err
			}
			for _, ref := range args {
				status, err := client.ImageStatus(ctx, &pb.ImageStatusRequest{Image: &pb.ImageSpec{Image: ref}, Verbose: true})
				if err != nil {
					return err
				}
				if status.Image == nil {
					return fmt.Errorf("no such image %q present", ref)
				}
				if err := printJSON(map[string]interface{}{"status": status.Image, "info": decodeInfo(status.Info)}); err != nil {
					return err
				}
			}
			return nil
		case "pull":
			if err := needArgs(); err != nil {
				return err
			}
			for _, ref := range args {
				// A pull may take long; the timeout bounded the connection only.
				resp, err := client.PullImage(context.Background(), &pb.PullImageRequest{Image: &pb.ImageSpec{Image: ref}})
				if err != nil {
					return fmt.Errorf("pulling image %q: %w", ref, err)
				}
				fmt.Printf("Image is up to date for %s\n", resp.ImageRef)
			}
			return nil
		}
	}
	usage()
	return fmt.Errorf("unknown command (this is %s)", about)
}

// decodeInfo turns the runtime's verbose info (JSON documents as strings) into objects.
func decodeInfo(in map[string]string) map[string]interface{} {
	out := map[string]interface{}{}
	for k, v := range in {
		var decoded interface{}
		if json.Unmarshal([]byte(v), &decoded) == nil {
			out[k] = decoded
		} else {
			out[k] = v
		}
	}
	return out
}

func shortID(id string) string {
	id = strings.TrimPrefix(id, "sha256:")
	if len(id) > 13 {
		return id[:13]
	}
	return id
}

func ago(nanos int64) string {
	d := time.Since(time.Unix(0, nanos)).Round(time.Second)
	return d.String() + " ago"
}

func listPods(ctx context.Context, client pb.RuntimeServiceClient, quiet bool) error {
	resp, err := client.ListPodSandbox(ctx, &pb.ListPodSandboxRequest{})
	if err != nil {
		return err
	}
	items := resp.Items
	sort.Slice(items, func(i, j int) bool { return items[i].CreatedAt > items[j].CreatedAt })
	if quiet {
		for _, p := range items {
			fmt.Println(p.Id)
		}
		return nil
	}
	w := tabwriter.NewWriter(os.Stdout, 0, 4, 3, ' ', 0)
	fmt.Fprintln(w, "POD ID\tCREATED\tSTATE\tNAME\tNAMESPACE\tATTEMPT")
	for _, p := range items {
		m := p.Metadata
		if m == nil {
			m = &pb.PodSandboxMetadata{}
		}
		state := strings.TrimPrefix(p.State.String(), "SANDBOX_")
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%d\n", shortID(p.Id), ago(p.CreatedAt), state, m.Name, m.Namespace, m.Attempt)
	}
	return w.Flush()
}

func listContainers(ctx context.Context, client pb.RuntimeServiceClient, all, quiet bool) error {
	req := &pb.ListContainersRequest{}
	if !all {
		req.Filter = &pb.ContainerFilter{State: &pb.ContainerStateValue{State: pb.ContainerState_CONTAINER_RUNNING}}
	}
	resp, err := client.ListContainers(ctx, req)
	if err != nil {
		return err
	}
	items := resp.Containers
	sort.Slice(items, func(i, j int) bool { return items[i].CreatedAt > items[j].CreatedAt })
	if quiet {
		for _, c := range items {
			fmt.Println(c.Id)
		}
		return nil
	}
	w := tabwriter.NewWriter(os.Stdout, 0, 4, 3, ' ', 0)
	fmt.Fprintln(w, "CONTAINER\tIMAGE\tCREATED\tSTATE\tNAME\tATTEMPT\tPOD ID")
	for _, c := range items {
		m := c.Metadata
		if m == nil {
			m = &pb.ContainerMetadata{}
		}
		image := c.ImageRef
		if c.Image != nil && c.Image.Image != "" {
			image = c.Image.Image
		}
		state := strings.TrimPrefix(c.State.String(), "CONTAINER_")
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%d\t%s\n", shortID(c.Id), shortID(image), ago(c.CreatedAt), state, m.Name, m.Attempt, shortID(c.PodSandboxId))
	}
	return w.Flush()
}

func listImages(ctx context.Context, client pb.ImageServiceClient, quiet bool) error {
	resp, err := client.ListImages(ctx, &pb.ListImagesRequest{})
	if err != nil {
		return err
	}
	if quiet {
		for _, img := range resp.Images {
			fmt.Println(img.Id)
		}
		return nil
	}
	type row struct{ repo, tag, id, size string }
	var rows []row
	for _, img := range resp.Images {
		size := fmt.Sprintf("%.1fMB", float64(img.Size_)/1e6)
		if len(img.RepoTags) == 0 {
			rows = append(rows, row{"<none>", "<none>", shortID(img.Id), size})
		}
		for _, t := range img.RepoTags {
			i := strings.LastIndex(t, ":")
			if i < 0 || strings.Contains(t[i:], "/") {
				rows = append(rows, row{t, "<none>", shortID(img.Id), size})
				continue
			}
			rows = append(rows, row{t[:i], t[i+1:], shortID(img.Id), size})
		}
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].repo+rows[i].tag < rows[j].repo+rows[j].tag })
	w := tabwriter.NewWriter(os.Stdout, 0, 4, 3, ' ', 0)
	fmt.Fprintln(w, "IMAGE\tTAG\tIMAGE ID\tSIZE")
	for _, r := range rows {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", r.repo, r.tag, r.id, r.size)
	}
	return w.Flush()
}

// containerLogs prints the message part of the CRI log file ("TIME STREAM TAG MESSAGE").
func containerLogs(ctx context.Context, client pb.RuntimeServiceClient, id string, tail int) error {
	resp, err := client.ContainerStatus(ctx, &pb.ContainerStatusRequest{ContainerId: id})
	if err != nil {
		return err
	}
	if resp.Status == nil || resp.Status.LogPath == "" {
		return fmt.Errorf("container %s has no log path", id)
	}
	f, err := os.Open(resp.Status.LogPath)
	if err != nil {
		return err
	}
	defer f.Close()
	var lines []string
	reader := bufio.NewReader(f)
	for {
		line, err := reader.ReadString('\n')
		if line != "" {
			if parts := strings.SplitN(line, " ", 4); len(parts) == 4 {
				line = parts[3]
				if parts[2] == "P" {
					line = strings.TrimSuffix(line, "\n")
				}
			}
			lines = append(lines, line)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
	}
	if tail >= 0 && tail < len(lines) {
		lines = lines[len(lines)-tail:]
	}
	for _, l := range lines {
		fmt.Print(l)
	}
	return nil
}
