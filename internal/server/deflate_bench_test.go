package server

import (
	"fmt"
	"testing"

	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/ws"
)

// typicalData is the data of a typical 1 KB event: an order update as a
// Laravel app broadcasts it (the frame comes to about 1.2 KB).
const typicalData = `{"order":{"id":48213,"number":"ORD-2026-048213","status":"shipped",` +
	`"previous_status":"packed","updated_at":"2026-11-30T14:21:07.000000Z",` +
	`"customer":{"id":9921,"name":"Maria Gonzalez","email":"maria.gonzalez@example.com"},` +
	`"shipping":{"carrier":"DHL Express","tracking_number":"JD014600006281234567",` +
	`"tracking_url":"https://www.dhl.com/en/express/tracking.html?AWB=JD014600006281234567",` +
	`"estimated_delivery":"2026-12-03","address":{"line1":"Calle de Alcala 42","line2":"3B",` +
	`"city":"Madrid","postal_code":"28014","country":"ES"}},` +
	`"items":[{"sku":"TSHIRT-BLK-M","name":"Classic T-Shirt, black, M","quantity":2,"unit_price":1999},` +
	`{"sku":"HOODIE-GRY-L","name":"Zip Hoodie, grey, L","quantity":1,"unit_price":4999},` +
	`{"sku":"SOCKS-WHT-3P","name":"Sport Socks, white, 3 pairs","quantity":1,"unit_price":1299}],` +
	`"totals":{"subtotal":10296,"shipping":495,"tax":2266,"total":13057,"currency":"EUR"}},` +
	`"message":"Your order ORD-2026-048213 has shipped with DHL Express."}`

// wireCounter is a subscriber that counts the bytes it would write.
type wireCounter struct {
	deflate bool
	bytes   int
}

func (w *wireCounter) SocketSeq() uint64       { return 0 }
func (w *wireCounter) Deliver(f *hub.Frame)    { w.bytes += len(f.For(w.deflate)) }
func (w *wireCounter) Terminate()              {}
func (w *wireCounter) Moved(*hub.Channel, int) {}

// BenchmarkDeliver1KB measures what the server spends to deliver a typical
// 1 KB event, per delivered message, up to the socket write (which it does
// not include): encoding once, and with deflate compressing once, then
// handing the frame to each subscriber. wire-B is what each subscriber's
// socket would carry. With one subscriber (a private-user channel) the
// compression is paid by every delivery; with a thousand it is shared.
func BenchmarkDeliver1KB(b *testing.B) {
	for _, deflate := range []bool{false, true} {
		for _, subs := range []int{1, 1000} {
			b.Run(fmt.Sprintf("deflate=%v/subscribers=%d", deflate, subs), func(b *testing.B) {
				benchDeliver(b, deflate, subs)
			})
		}
	}
}

func benchDeliver(b *testing.B, deflate bool, n int) {
	h := hub.New(hub.Config{Shards: 1, Encode: encode, Compress: ws.DeflateFrame}, 1)
	h.SetShard(0, inlineShard{h})
	ch := h.Acquire("app", "private-orders.48213")
	subs := make([]wireCounter, n)
	for i := range subs {
		subs[i].deflate = deflate
		h.Attach(ch, 0, &subs[i])
	}
	p := hub.Publication{Channels: []string{ch.Name()}, Event: `App\Events\OrderStatusUpdated`, Data: typicalData}
	b.ReportAllocs()
	for b.Loop() {
		if err := h.Publish("app", p); err != nil {
			b.Fatal(err)
		}
	}
	per := float64(b.N) * float64(n)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/per, "ns/delivery")
	b.ReportMetric(float64(subs[0].bytes)/float64(b.N), "wire-B")
}

// inlineShard flushes a delivery at once on the publisher's goroutine.
type inlineShard struct{ h *hub.Hub }

func (s inlineShard) Post(d hub.Delivery) { s.h.Flush(d) }
func (s inlineShard) Do(f func())         { f() }
