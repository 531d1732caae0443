package state

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"
)

// readAttempts bounds how often Read starts over when a concurrent write replaced the chunks it
// was reading.
const readAttempts = 5

// errMoved means the head moved on while its chunks were read.
var errMoved = errors.New("state changed while reading")

func (b *kube) Read(ctx context.Context) (*State, error) {
	if b.invalid != nil {
		return nil, b.invalid
	}
	for attempt := 1; ; attempt++ {
		head, err := b.getHead(ctx)
		if err != nil {
			return nil, err
		}
		if head == nil {
			if err := b.checkNamespace(ctx); err != nil {
				return nil, err
			}
			return Empty(b.landscape), nil
		}
		s, err := b.assemble(ctx, head)
		if errors.Is(err, errMoved) && attempt < readAttempts {
			continue
		}
		return s, err
	}
}

// getHead returns the head Secret, or nil when there is none.
func (b *kube) getHead(ctx context.Context) (*corev1.Secret, error) {
	head, err := b.client.CoreV1().Secrets(b.namespace).Get(ctx, b.headName(), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.where(), err)
	}
	return head, nil
}

// checkNamespace tells a missing namespace from a missing state. Without the right to read
// namespaces it assumes the namespace exists; a write would still say otherwise.
func (b *kube) checkNamespace(ctx context.Context) error {
	_, err := b.client.CoreV1().Namespaces().Get(ctx, b.namespace, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return b.errNamespace()
	}
	return nil
}

// headMeta is what the head's annotations say about the stored state.
type headMeta struct {
	serial  int64
	lineage string
	chunks  int
	sha256  string
	writeID string
}

func parseHead(a map[string]string) (headMeta, error) {
	m := headMeta{lineage: a[annoLineage], sha256: a[annoSHA256], writeID: a[annoWriteID]}
	var err1, err2 error
	m.serial, err1 = strconv.ParseInt(a[annoSerial], 10, 64)
	m.chunks, err2 = strconv.Atoi(a[annoChunks])
	if err := errors.Join(err1, err2); err != nil || m.chunks < 1 || m.lineage == "" || m.sha256 == "" {
		return m, fmt.Errorf("annotations are incomplete or invalid (%v); the state is damaged", err)
	}
	if m.chunks > MaxStateChunks {
		return m, fmt.Errorf("the head names %d chunks, more than the %d gardener reads; the state is damaged", m.chunks, MaxStateChunks)
	}
	return m, nil
}

// assemble reads the chunks the head names and decodes the state.
func (b *kube) assemble(ctx context.Context, head *corev1.Secret) (*State, error) {
	m, err := parseHead(head.Annotations)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.where(), err)
	}
	data := append([]byte(nil), head.Data[dataKey]...)
	for n := 1; n < m.chunks; n++ {
		name := b.chunkName(m.writeID, n)
		chunk, err := b.client.CoreV1().Secrets(b.namespace).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			if now, herr := b.getHead(ctx); herr == nil && (now == nil || now.ResourceVersion != head.ResourceVersion) {
				return nil, errMoved
			}
			return nil, fmt.Errorf("%s: chunk %s is missing; the state is damaged", b.where(), name)
		}
		if err != nil {
			return nil, fmt.Errorf("state secret %s/%s: %w", b.namespace, name, err)
		}
		if chunk.Annotations[annoWriteID] != m.writeID || chunk.Annotations[annoIndex] != strconv.Itoa(n) {
			return nil, fmt.Errorf("state secret %s/%s: does not belong to write %s; the state is damaged", b.namespace, name, m.writeID)
		}
		data = append(data, chunk.Data[dataKey]...)
		if len(data) > MaxStateSize {
			return nil, fmt.Errorf("%s: the chunks hold more than %d MiB, the largest state gardener reads; the state is damaged", b.where(), MaxStateSize>>20)
		}
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != m.sha256 {
		return nil, fmt.Errorf("%s: checksum mismatch; the state is damaged", b.where())
	}
	raw, err := gunzip(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.where(), err)
	}
	s, err := decode(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.where(), err)
	}
	if s.Serial != m.serial || s.Lineage != m.lineage {
		return nil, fmt.Errorf("%s: content (lineage %s, serial %d) disagrees with the annotations (lineage %s, serial %d); the state is damaged", b.where(), s.Lineage, s.Serial, m.lineage, m.serial)
	}
	if s.Landscape != b.landscape {
		return nil, fmt.Errorf("%s: holds the state of landscape %q, not %q", b.where(), s.Landscape, b.landscape)
	}
	return s, nil
}

func (b *kube) Write(ctx context.Context, s *State) error {
	if b.invalid != nil {
		return b.invalid
	}
	if s.Landscape != "" && s.Landscape != b.landscape {
		return fmt.Errorf("%s: cannot store the state of landscape %q here", b.where(), s.Landscape)
	}
	head, err := b.getHead(ctx)
	if err != nil {
		return err
	}
	cur := stored{}
	if head != nil {
		m, err := parseHead(head.Annotations)
		if err != nil {
			return fmt.Errorf("%s: %w", b.where(), err)
		}
		cur = stored{exists: true, lineage: m.lineage, serial: m.serial}
	}
	lineage, serial, err := next(b.where(), cur, s)
	if err != nil {
		return err
	}
	st := prepared(s, lineage, serial)
	st.Landscape = b.landscape
	data, err := pack(st)
	if err != nil {
		return fmt.Errorf("%s: %w", b.where(), err)
	}
	if err := b.store(ctx, head, data, st); err != nil {
		return err
	}
	s.FormatVersion, s.Lineage, s.Serial, s.Landscape = FormatVersion, lineage, serial, b.landscape
	return nil
}

// store writes the chunks of data under a fresh write ID, switches the head to them, and then
// deletes older chunk sets.
func (b *kube) store(ctx context.Context, head *corev1.Secret, data []byte, st *State) error {
	secrets := b.client.CoreV1().Secrets(b.namespace)
	parts := split(data, b.opts.ChunkSize)
	if len(parts) > MaxStateChunks {
		return fmt.Errorf("%s: the state needs %d chunks of %d KiB, more than the %d gardener reads back; raise the chunk size", b.where(), len(parts), b.opts.ChunkSize>>10, MaxStateChunks)
	}
	writeID := newUUID()[:8]
	serial := strconv.FormatInt(st.Serial, 10)
	var created []string
	discard := func() {
		for _, name := range created {
			_ = secrets.Delete(context.WithoutCancel(ctx), name, metav1.DeleteOptions{})
		}
	}
	for n := 1; n < len(parts); n++ {
		chunk := b.secret(b.chunkName(writeID, n), roleChunk, parts[n], map[string]string{
			annoWriteID: writeID, annoIndex: strconv.Itoa(n), annoSerial: serial,
		})
		chunk.Immutable = ptr.To(true)
		if _, err := secrets.Create(ctx, chunk, metav1.CreateOptions{}); err != nil {
			discard()
			if namespaceMissing(err) {
				return b.errNamespace()
			}
			return fmt.Errorf("state secret %s/%s: %w", b.namespace, chunk.Name, err)
		}
		created = append(created, chunk.Name)
	}
	sum := sha256.Sum256(data)
	annotations := map[string]string{
		annoSerial: serial, annoLineage: st.Lineage, annoChunks: strconv.Itoa(len(parts)),
		annoSHA256: hex.EncodeToString(sum[:]), annoWriteID: writeID,
	}
	if b.shard != "" {
		annotations[annoShard] = b.shard
	}
	next := b.secret(b.headName(), roleHead, parts[0], annotations)
	var err error
	if head == nil {
		_, err = secrets.Create(ctx, next, metav1.CreateOptions{})
	} else {
		next.ResourceVersion = head.ResourceVersion
		_, err = secrets.Update(ctx, next, metav1.UpdateOptions{})
	}
	if err != nil {
		discard()
		switch {
		case namespaceMissing(err):
			return b.errNamespace()
		case apierrors.IsConflict(err), apierrors.IsAlreadyExists(err), apierrors.IsNotFound(err):
			return fmt.Errorf("%s: %w: another writer stored a state meanwhile; read it and try again", b.where(), ErrStaleSerial)
		}
		return fmt.Errorf("%s: %w", b.where(), err)
	}
	b.collect(ctx, writeID, st.Serial)
	return nil
}

func (b *kube) secret(name, role string, data []byte, annotations map[string]string) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: b.namespace, Annotations: annotations,
			Labels: b.labels(role),
		},
		Type: corev1.SecretTypeOpaque,
		Data: map[string][]byte{dataKey: data},
	}
}

// collect deletes the chunk sets the head no longer names: those of earlier writes and of
// writes that died before switching the head. Sets written for a later serial belong to a write
// in progress and stay. Failures only leave garbage the next write collects.
func (b *kube) collect(ctx context.Context, keep string, serial int64) {
	secrets := b.client.CoreV1().Secrets(b.namespace)
	list, err := secrets.List(ctx, metav1.ListOptions{LabelSelector: b.selector(roleChunk)})
	if err != nil {
		return
	}
	for _, s := range list.Items {
		target, err := strconv.ParseInt(s.Annotations[annoSerial], 10, 64)
		if s.Annotations[annoWriteID] == keep || (err == nil && target > serial) {
			continue
		}
		_ = secrets.Delete(ctx, s.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &s.UID}})
	}
}

// selector selects the backend's Secrets of role, and only this shard's: the landscape's own
// state selects those without a shard label.
func (b *kube) selector(role string) string {
	sel := labels.SelectorFromSet(labels.Set{stateLabel: b.landscape, roleLabel: role}).String()
	if b.shard == "" {
		return sel + ",!" + shardLabel
	}
	return sel + "," + shardLabel + "=" + shardKey(b.shard)
}

// split cuts data into parts of at most size bytes; empty data is one empty part.
func split(data []byte, size int) [][]byte {
	parts := [][]byte{}
	for len(data) > size {
		parts = append(parts, data[:size])
		data = data[size:]
	}
	return append(parts, data)
}

// pack is a state as the Secrets store it: compact JSON compressed for speed. An apply writes the
// whole state several times (at 100 shoots 4 MB of indented JSON took 60 ms to encode and
// compress; compact and fast, 14 ms for 10% more bytes), and no one reads the Secrets by eye.
func pack(s *State) ([]byte, error) {
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("encode: %w", err)
	}
	return gzipBytes(raw)
}

func gzipBytes(data []byte) ([]byte, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(data); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// gunzip decompresses a state, at most MaxStateSize of it: whoever can write Secrets in the
// state's namespace must not be able to exhaust the memory of every plan with a small one.
func gunzip(data []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("decompress: %w", err)
	}
	raw, err := io.ReadAll(io.LimitReader(zr, MaxStateSize+1))
	if err != nil {
		return nil, fmt.Errorf("decompress: %w", err)
	}
	if len(raw) > MaxStateSize {
		return nil, fmt.Errorf("decompress: the state decompresses to more than %d MiB, the largest state gardener reads; it is damaged", MaxStateSize>>20)
	}
	return raw, nil
}
