// Command hl-cluster-dns is hybrid-lab's stand-in for CoreDNS, which cannot be built from
// Debian: a small authoritative server for the cluster domain, fed by client-go informers on
// Services and Endpoints. It is not CoreDNS and implements only this subset of the Kubernetes
// DNS specification:
//
//	<svc>.<ns>.svc.<domain>                A/AAAA: the ClusterIP, or for a headless Service the
//	                                       ready endpoint addresses; ExternalName: a CNAME,
//	                                       followed (as CoreDNS does) by what its target
//	                                       answers when the target is in the domain
//	<host>.<svc>.<ns>.svc.<domain>         A/AAAA: the endpoint address whose hostname (pod
//	                                       spec.hostname + subdomain) or dashed IP is <host>
//	_<port>._<proto>.<svc>.<ns>.svc.<domain>  SRV for named Service ports
//	<a-b-c-d>.<ns>.pod.<domain>            A: the address spelled in the name
//
// Other names in the domain get NXDOMAIN (or NODATA for names that exist with other types);
// names outside it are REFUSED: it is no recursive resolver. UDP and TCP.
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/miekg/dns"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

const (
	version = "0.2.0"
	about   = "hybrid-lab cluster DNS, a stand-in for CoreDNS (not CoreDNS)"
	// maxCNAMEs bounds how many ExternalName CNAMEs one answer follows (a loop ends there).
	maxCNAMEs = 8
)

type server struct {
	zone       string // "cluster.local." (lower case, fully qualified)
	ttl        uint32
	services   listers.ServiceLister
	endpoints  listers.EndpointsLister
	synced     atomic.Bool
	logQueries bool
}

func main() {
	domain := flag.String("domain", "cluster.local", "the cluster domain served")
	listen := flag.String("listen", ":53", "address for DNS over UDP and TCP")
	health := flag.String("health-listen", ":8080", "address of the HTTP /health and /ready endpoints ('' for none)")
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig file (default: in-cluster configuration)")
	ttl := flag.Uint("ttl", 5, "TTL of the records, seconds")
	logQueries := flag.Bool("log-queries", false, "log every query and its answer")
	showVersion := flag.Bool("version", false, "print the version and exit")
	flag.Parse()
	if *showVersion {
		fmt.Printf("hl-cluster-dns %s: %s\n", version, about)
		return
	}
	log.SetFlags(log.LstdFlags | log.Lmicroseconds)
	log.Printf("hl-cluster-dns %s: %s; domain %s, listening on %s (udp, tcp)", version, about, *domain, *listen)

	var config *rest.Config
	var err error
	if *kubeconfig != "" {
		config, err = clientcmd.BuildConfigFromFlags("", *kubeconfig)
	} else {
		config, err = rest.InClusterConfig()
	}
	if err != nil {
		log.Fatalf("kubernetes client configuration: %v", err)
	}
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		log.Fatalf("kubernetes client: %v", err)
	}
	factory := informers.NewSharedInformerFactory(client, 0)
	s := &server{
		zone:       strings.ToLower(dns.Fqdn(*domain)),
		ttl:        uint32(*ttl),
		services:   factory.Core().V1().Services().Lister(),
		endpoints:  factory.Core().V1().Endpoints().Lister(),
		logQueries: *logQueries,
	}
	stop := make(chan struct{})
	factory.Start(stop)
	go func() {
		for !s.synced.Load() {
			synced := factory.WaitForCacheSync(stop)
			all := true
			for _, ok := range synced {
				all = all && ok
			}
			if all {
				s.synced.Store(true)
				log.Printf("Services and Endpoints synced; answering")
			} else {
				time.Sleep(time.Second)
			}
		}
	}()

	if *health != "" {
		mux := http.NewServeMux()
		mux.HandleFunc("/health", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "OK") })
		mux.HandleFunc("/ready", func(w http.ResponseWriter, _ *http.Request) {
			if !s.synced.Load() {
				http.Error(w, "informers not synced", http.StatusServiceUnavailable)
				return
			}
			fmt.Fprintln(w, "OK")
		})
		go func() { log.Fatal(http.ListenAndServe(*health, mux)) }()
	}
	errs := make(chan error, 2)
	for _, network := range []string{"udp", "tcp"} {
		srv := &dns.Server{Addr: *listen, Net: network, Handler: s}
		go func() { errs <- srv.ListenAndServe() }()
	}
	err = <-errs
	log.Printf("DNS server stopped: %v", err)
	os.Exit(1)
}

// ServeDNS answers one message.
func (s *server) ServeDNS(w dns.ResponseWriter, r *dns.Msg) {
	m := new(dns.Msg)
	m.SetReply(r)
	m.Authoritative = true
	if len(r.Question) != 1 || r.Opcode != dns.OpcodeQuery {
		m.SetRcode(r, dns.RcodeNotImplemented)
		_ = w.WriteMsg(m)
		return
	}
	q := r.Question[0]
	rcode, answer := s.answer(q, 0)
	m.Rcode = rcode
	m.Answer = answer
	if rcode == dns.RcodeRefused {
		m.Authoritative = false
	} else if rcode == dns.RcodeNameError || (rcode == dns.RcodeSuccess && len(answer) == 0) {
		m.Ns = []dns.RR{s.soa()}
	}
	if s.logQueries {
		log.Printf("%s %s %s -> %s %d answers", w.RemoteAddr(), dns.TypeToString[q.Qtype], q.Name, dns.RcodeToString[rcode], len(answer))
	}
	_ = w.WriteMsg(m)
}

func (s *server) soa() dns.RR {
	return &dns.SOA{
		Hdr:     dns.RR_Header{Name: s.zone, Rrtype: dns.TypeSOA, Class: dns.ClassINET, Ttl: s.ttl},
		Ns:      "ns.dns." + s.zone,
		Mbox:    "hostmaster." + s.zone,
		Serial:  uint32(time.Now().Unix()),
		Refresh: 7200,
		Retry:   1800,
		Expire:  86400,
		Minttl:  s.ttl,
	}
}

// answer returns the rcode and the answer records for one question; depth counts the CNAMEs
// followed to reach it.
func (s *server) answer(q dns.Question, depth int) (int, []dns.RR) {
	name := strings.ToLower(dns.Fqdn(q.Name))
	if q.Qclass != dns.ClassINET && q.Qclass != dns.ClassANY {
		return dns.RcodeRefused, nil
	}
	if name != s.zone && !strings.HasSuffix(name, "."+s.zone) {
		return dns.RcodeRefused, nil
	}
	if !s.synced.Load() {
		return dns.RcodeServerFailure, nil
	}
	if name == s.zone {
		if q.Qtype == dns.TypeSOA {
			return dns.RcodeSuccess, []dns.RR{s.soa()}
		}
		return dns.RcodeSuccess, nil
	}
	labels := strings.Split(strings.TrimSuffix(name, "."+s.zone), ".")
	n := len(labels)
	switch {
	case n == 1 && (labels[0] == "svc" || labels[0] == "pod"):
		return dns.RcodeSuccess, nil
	case n == 2 && (labels[1] == "svc" || labels[1] == "pod"):
		return dns.RcodeSuccess, nil // a namespace: exists, no records of its own
	case n == 3 && labels[2] == "pod":
		ip := net.ParseIP(strings.ReplaceAll(labels[0], "-", "."))
		if ip == nil || ip.To4() == nil {
			return dns.RcodeNameError, nil
		}
		return dns.RcodeSuccess, s.addressRecords(q, name, []string{ip.String()})
	case n == 3 && labels[2] == "svc":
		return s.serviceAnswer(q, name, labels[1], labels[0], depth)
	case n == 4 && labels[3] == "svc":
		return s.endpointAnswer(q, name, labels[2], labels[1], labels[0])
	case n == 5 && labels[4] == "svc" && strings.HasPrefix(labels[0], "_") && strings.HasPrefix(labels[1], "_"):
		return s.srvAnswer(q, name, labels[3], labels[2], labels[0][1:], labels[1][1:])
	}
	return dns.RcodeNameError, nil
}

func (s *server) service(ns, name string) (*v1.Service, bool) {
	svc, err := s.services.Services(ns).Get(name)
	if err != nil {
		if !apierrors.IsNotFound(err) {
			log.Printf("service %s/%s: %v", ns, name, err)
		}
		return nil, false
	}
	return svc, true
}

func headless(svc *v1.Service) bool {
	return svc.Spec.ClusterIP == v1.ClusterIPNone
}

// endpointAddresses lists the addresses of a Service's Endpoints (not-ready ones only when
// the Service publishes them).
func (s *server) endpointAddresses(svc *v1.Service) []v1.EndpointAddress {
	ep, err := s.endpoints.Endpoints(svc.Namespace).Get(svc.Name)
	if err != nil {
		return nil
	}
	var out []v1.EndpointAddress
	for _, subset := range ep.Subsets {
		out = append(out, subset.Addresses...)
		if svc.Spec.PublishNotReadyAddresses {
			out = append(out, subset.NotReadyAddresses...)
		}
	}
	return out
}

func (s *server) serviceAnswer(q dns.Question, name, ns, svcName string, depth int) (int, []dns.RR) {
	svc, ok := s.service(ns, svcName)
	if !ok {
		return dns.RcodeNameError, nil
	}
	if svc.Spec.Type == v1.ServiceTypeExternalName {
		target := strings.ToLower(dns.Fqdn(svc.Spec.ExternalName))
		cname := []dns.RR{&dns.CNAME{
			Hdr:    dns.RR_Header{Name: name, Rrtype: dns.TypeCNAME, Class: dns.ClassINET, Ttl: s.ttl},
			Target: target,
		}}
		// As CoreDNS's kubernetes plugin: a target in the domain is answered too, so that a stub
		// resolver (which does not chase a CNAME itself) gets the address; outside it the CNAME alone.
		if depth >= maxCNAMEs || !strings.HasSuffix(target, "."+s.zone) {
			return dns.RcodeSuccess, cname
		}
		rcode, more := s.answer(dns.Question{Name: target, Qtype: q.Qtype, Qclass: q.Qclass}, depth+1)
		if rcode != dns.RcodeSuccess {
			return dns.RcodeSuccess, cname
		}
		return dns.RcodeSuccess, append(cname, more...)
	}
	var ips []string
	if headless(svc) {
		seen := map[string]bool{}
		for _, a := range s.endpointAddresses(svc) {
			if !seen[a.IP] {
				seen[a.IP] = true
				ips = append(ips, a.IP)
			}
		}
		sort.Strings(ips)
	} else {
		ips = svc.Spec.ClusterIPs
		if len(ips) == 0 && svc.Spec.ClusterIP != "" {
			ips = []string{svc.Spec.ClusterIP}
		}
	}
	return dns.RcodeSuccess, s.addressRecords(q, name, ips)
}

func (s *server) endpointAnswer(q dns.Question, name, ns, svcName, host string) (int, []dns.RR) {
	svc, ok := s.service(ns, svcName)
	if !ok {
		return dns.RcodeNameError, nil
	}
	var ips []string
	for _, a := range s.endpointAddresses(svc) {
		dashed := strings.ReplaceAll(strings.ReplaceAll(a.IP, ".", "-"), ":", "-")
		if strings.EqualFold(a.Hostname, host) || dashed == host {
			ips = append(ips, a.IP)
		}
	}
	if len(ips) == 0 {
		return dns.RcodeNameError, nil
	}
	return dns.RcodeSuccess, s.addressRecords(q, name, ips)
}

func (s *server) srvAnswer(q dns.Question, name, ns, svcName, port, proto string) (int, []dns.RR) {
	svc, ok := s.service(ns, svcName)
	if !ok {
		return dns.RcodeNameError, nil
	}
	target := fmt.Sprintf("%s.%s.svc.%s", svc.Name, svc.Namespace, s.zone)
	var rrs []dns.RR
	for _, p := range svc.Spec.Ports {
		if p.Name == "" || !strings.EqualFold(p.Name, port) || !strings.EqualFold(string(p.Protocol), proto) {
			continue
		}
		if q.Qtype == dns.TypeSRV || q.Qtype == dns.TypeANY {
			rrs = append(rrs, &dns.SRV{
				Hdr:      dns.RR_Header{Name: name, Rrtype: dns.TypeSRV, Class: dns.ClassINET, Ttl: s.ttl},
				Priority: 0, Weight: 100, Port: uint16(p.Port), Target: target,
			})
		}
		return dns.RcodeSuccess, rrs
	}
	return dns.RcodeNameError, nil
}

// addressRecords gives A (IPv4) or AAAA (IPv6) records of ips for the question's type; an
// existing name asked for another type gets none (NODATA).
func (s *server) addressRecords(q dns.Question, name string, ips []string) []dns.RR {
	var rrs []dns.RR
	for _, text := range ips {
		ip := net.ParseIP(text)
		if ip == nil {
			continue
		}
		if v4 := ip.To4(); v4 != nil && (q.Qtype == dns.TypeA || q.Qtype == dns.TypeANY) {
			rrs = append(rrs, &dns.A{Hdr: dns.RR_Header{Name: name, Rrtype: dns.TypeA, Class: dns.ClassINET, Ttl: s.ttl}, A: v4})
		} else if ip.To4() == nil && (q.Qtype == dns.TypeAAAA || q.Qtype == dns.TypeANY) {
			rrs = append(rrs, &dns.AAAA{Hdr: dns.RR_Header{Name: name, Rrtype: dns.TypeAAAA, Class: dns.ClassINET, Ttl: s.ttl}, AAAA: ip})
		}
	}
	return rrs
}
