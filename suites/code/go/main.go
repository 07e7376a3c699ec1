// Command shorty is a tiny URL shortener with an in-memory store.
//
//	go run . -addr :8080
//	curl -d '{"url":"https://example.com/very/long/path"}' localhost:8080/api/links
package main

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"flag"
	"log"
	"math/big"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

const (
	codeLength  = 7
	alphabet    = "23456789abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ" // no 0/O, 1/l/I
	maxURLBytes = 2048
)

type link struct {
	Code      string    `json:"code"`
	URL       string    `json:"url"`
	CreatedAt time.Time `json:"created_at"`
	Hits      int64     `json:"hits"`
}

type store struct {
	mu    sync.RWMutex
	links map[string]*link
}

func newStore() *store { return &store{links: make(map[string]*link)} }

func randomCode(n int) (string, error) {
	var b strings.Builder
	limit := big.NewInt(int64(len(alphabet)))
	for i := 0; i < n; i++ {
		idx, err := rand.Int(rand.Reader, limit)
		if err != nil {
			return "", err
		}
		b.WriteByte(alphabet[idx.Int64()])
	}
	return b.String(), nil
}

func (s *store) create(raw string) (*link, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("url must be an absolute http(s) URL")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for attempt := 0; attempt < 5; attempt++ {
		code, err := randomCode(codeLength)
		if err != nil {
			return nil, err
		}
		if _, taken := s.links[code]; !taken {
			l := &link{Code: code, URL: u.String(), CreatedAt: time.Now().UTC()}
			s.links[code] = l
			return l, nil
		}
	}
	return nil, errors.New("could not allocate a unique code")
}

func (s *store) resolve(code string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l, ok := s.links[code]
	if !ok {
		return "", false
	}
	l.Hits++
	return l.URL, true
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	if err := json.NewEncoder(w).Encode(v); err != nil {
		log.Printf("encode response: %v", err)
	}
}

func (s *store) handleCreate(w http.ResponseWriter, r *http.Request) {
	var req struct {
		URL string `json:"url"`
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxURLBytes+64)
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid JSON body"})
		return
	}
	l, err := s.create(req.URL)
	if err != nil {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]string{"error": err.Error()})
		return
	}
	writeJSON(w, http.StatusCreated, l)
}

func (s *store) handleRedirect(w http.ResponseWriter, r *http.Request) {
	target, ok := s.resolve(r.PathValue("code"))
	if !ok {
		http.NotFound(w, r)
		return
	}
	http.Redirect(w, r, target, http.StatusFound)
}

func main() {
	addr := flag.String("addr", ":8080", "listen address")
	flag.Parse()

	s := newStore()
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/links", s.handleCreate)
	mux.HandleFunc("GET /{code}", s.handleRedirect)

	srv := &http.Server{
		Addr:              *addr,
		Handler:           mux,
		ReadHeaderTimeout: 5 * time.Second,
		WriteTimeout:      10 * time.Second,
	}
	log.Printf("shorty listening on %s", *addr)
	log.Fatal(srv.ListenAndServe())
}
