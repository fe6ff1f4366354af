// anthocnet.h: AntHocNet as an ns-3 (3.37) Ipv4RoutingProtocol.
//
// Written for tcpviz from the published algorithm:
//   G. Di Caro, F. Ducatelle, L. M. Gambardella, "AntHocNet: an ant-based
//   hybrid routing algorithm for mobile ad hoc networks", PPSN VIII, LNCS
//   3242, 2004 (PPSN);
//   G. Di Caro, F. Ducatelle, L. M. Gambardella, "AntHocNet: an adaptive
//   nature-inspired algorithm for routing in mobile ad hoc networks",
//   European Transactions on Telecommunications 16(5), 2005 (ETT).
// Parameter names, defaults and sources: docs/anthocnet.md. Deviations from
// the papers are listed there too.
//
// Header-only: included by manet-tcp.cc, compiled into the scenario program.
// Control messages travel in UDP datagrams on port AntHocNetRouting::kPort.

#ifndef TCPVIZ_ANTHOCNET_H
#define TCPVIZ_ANTHOCNET_H

#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/wifi-module.h"

#include <cmath>
#include <cstring>
#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <sstream>
#include <unordered_map>
#include <vector>

namespace ns3
{
namespace anthocnet
{

// Message types (first byte of every control datagram).
enum MsgType : uint8_t
{
    kHello = 1,
    kForwardAnt = 2,
    kBackwardAnt = 3,
    kLinkFailure = 4,
};

// Forward-ant kinds.
enum AntKind : uint8_t
{
    kReactive = 0,
    kProactive = 1,
    kRepair = 2,
};

// Counters of control messages sent by one node, by kind (for the ground
// truth's overhead table).
struct Counters
{
    uint64_t helloPkts = 0, helloBytes = 0;
    uint64_t reactiveFantPkts = 0, reactiveFantBytes = 0;
    uint64_t proactiveFantPkts = 0, proactiveFantBytes = 0;
    uint64_t repairFantPkts = 0, repairFantBytes = 0;
    uint64_t bantPkts = 0, bantBytes = 0;
    uint64_t lfnPkts = 0, lfnBytes = 0;
    uint64_t dataNoRouteDrops = 0; // data packets dropped for lack of a route
    uint64_t localRepairs = 0;     // repair processes started
    uint64_t linkFailures = 0;     // neighbours declared lost
};

// Byte writer / reader for the control messages (network byte order).
class Writer
{
  public:
    void U8(uint8_t v) { b.push_back(v); }
    void U16(uint16_t v)
    {
        U8(v >> 8);
        U8(v & 0xff);
    }
    void U32(uint32_t v)
    {
        U16(v >> 16);
        U16(v & 0xffff);
    }
    void F64(double v)
    {
        uint64_t u;
        std::memcpy(&u, &v, 8);
        U32(u >> 32);
        U32(u & 0xffffffffu);
    }
    void Addr(Ipv4Address a) { U32(a.Get()); }
    Ptr<Packet> Packet_() const { return Create<Packet>(b.data(), b.size()); }
    std::vector<uint8_t> b;
};

class Reader
{
  public:
    explicit Reader(Ptr<Packet> p)
        : b(p->GetSize())
    {
        p->CopyData(b.data(), b.size());
    }
    bool Ok() const { return ok; }
    uint8_t U8()
    {
        if (i + 1 > b.size())
        {
            ok = false;
            return 0;
        }
        return b[i++];
    }
    uint16_t U16()
    {
        uint16_t h = U8();
        return (h << 8) | U8();
    }
    uint32_t U32()
    {
        uint32_t h = U16();
        return (h << 16) | U16();
    }
    double F64()
    {
        uint64_t h = U32();
        uint64_t u = (h << 32) | U32();
        double v;
        std::memcpy(&v, &u, 8);
        return v;
    }
    Ipv4Address Addr() { return Ipv4Address(U32()); }

  private:
    std::vector<uint8_t> b;
    size_t i = 0;
    bool ok = true;
};

// A forward or backward ant. Forward ants carry the path they took
// (source first); backward ants carry the same path and walk it back,
// summing the local time estimates of the nodes they pass.
struct Ant
{
    uint8_t kind = kReactive;
    Ipv4Address origin;       // the forward ant's source s
    uint32_t id = 0;          // per-origin sequence number (generation)
    Ipv4Address dest;         // the forward ant's destination d
    uint8_t broadcasts = 0;   // times this ant was broadcast
    double time = 0;          // sum of the local T^_i of the nodes passed
    std::vector<Ipv4Address> path;
};

// Pheromone of one (destination, neighbour) pair.
struct Pher
{
    double reg = 0;  // regular pheromone T^i_nd (from ants), 1/s
    double virt = 0; // virtual pheromone V^i_nd (from hello diffusion), 1/s
    uint8_t regHops = 0;  // hops of the last path that updated reg
    uint8_t virtHops = 0; // hops of the advertised path behind virt
};

struct Neighbour
{
    uint32_t iface = 0;
    Time lastHeard;
    Mac48Address mac;
    uint32_t macFailures = 0; // consecutive unicast frames lost at the retry limit
};

struct Queued
{
    Ptr<const Packet> p;
    Ipv4Header h;
    Ipv4RoutingProtocol::UnicastForwardCallback ucb;
    Ipv4RoutingProtocol::ErrorCallback ecb;
    Time since;
};

// AntHocNetRouting is the protocol instance of one node.
class AntHocNetRouting : public Ipv4RoutingProtocol
{
  public:
    static const uint16_t kPort = 5050;

    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId("ns3::tcpviz::AntHocNetRouting")
                .SetParent<Ipv4RoutingProtocol>()
                .SetGroupName("Internet")
                .AddConstructor<AntHocNetRouting>()
                .AddAttribute("Gamma", "pheromone update weight gamma (ETT eq. 2)",
                              DoubleValue(0.7),
                              MakeDoubleAccessor(&AntHocNetRouting::m_gamma),
                              MakeDoubleChecker<double>(0, 1))
                .AddAttribute("Alpha", "MAC time running-average weight alpha (ETT 3.1)",
                              DoubleValue(0.7),
                              MakeDoubleAccessor(&AntHocNetRouting::m_alpha),
                              MakeDoubleChecker<double>(0, 1))
                .AddAttribute("THop", "T_hop: time of one hop in unloaded conditions",
                              TimeValue(MilliSeconds(3)),
                              MakeTimeAccessor(&AntHocNetRouting::m_tHop),
                              MakeTimeChecker())
                .AddAttribute("Beta1", "exponent of the ants' next-hop probabilities",
                              DoubleValue(20),
                              MakeDoubleAccessor(&AntHocNetRouting::m_beta1),
                              MakeDoubleChecker<double>(1))
                .AddAttribute("Beta2", "exponent of data packets' next-hop probabilities",
                              DoubleValue(2),
                              MakeDoubleAccessor(&AntHocNetRouting::m_beta2),
                              MakeDoubleChecker<double>(1))
                .AddAttribute("A1", "acceptance factor a1 for copies of a broadcast forward ant",
                              DoubleValue(0.9),
                              MakeDoubleAccessor(&AntHocNetRouting::m_a1),
                              MakeDoubleChecker<double>(0, 1))
                .AddAttribute("HelloInterval", "t_hello: interval of hello messages",
                              TimeValue(Seconds(1)),
                              MakeTimeAccessor(&AntHocNetRouting::m_helloInterval),
                              MakeTimeChecker())
                .AddAttribute("AllowedHelloLoss", "hellos missed before a neighbour is lost",
                              UintegerValue(2),
                              MakeUintegerAccessor(&AntHocNetRouting::m_allowedHelloLoss),
                              MakeUintegerChecker<uint32_t>(1))
                .AddAttribute("ProactiveAntInterval",
                              "t_pro: interval of proactive forward ants of a data session",
                              TimeValue(Seconds(1)),
                              MakeTimeAccessor(&AntHocNetRouting::m_proactiveInterval),
                              MakeTimeChecker())
                .AddAttribute("ProactiveBroadcastProb",
                              "probability that a proactive forward ant is broadcast at a hop",
                              DoubleValue(0.1),
                              MakeDoubleAccessor(&AntHocNetRouting::m_proBcastProb),
                              MakeDoubleChecker<double>(0, 1))
                .AddAttribute("MaxProactiveBroadcasts",
                              "broadcasts after which a proactive ant is dropped",
                              UintegerValue(2),
                              MakeUintegerAccessor(&AntHocNetRouting::m_maxProBcast),
                              MakeUintegerChecker<uint32_t>())
                .AddAttribute("MaxRepairBroadcasts", "broadcasts of a repair ant",
                              UintegerValue(2),
                              MakeUintegerAccessor(&AntHocNetRouting::m_maxRepairBcast),
                              MakeUintegerChecker<uint32_t>())
                .AddAttribute("SessionTimeout",
                              "a data session ends after this long without data",
                              TimeValue(Seconds(5)),
                              MakeTimeAccessor(&AntHocNetRouting::m_sessionTimeout),
                              MakeTimeChecker())
                .AddAttribute("ReactiveTimeout",
                              "wait for a backward ant before re-sending a reactive ant",
                              TimeValue(Seconds(1)),
                              MakeTimeAccessor(&AntHocNetRouting::m_reactiveTimeout),
                              MakeTimeChecker())
                .AddAttribute("MaxReactiveRetries", "reactive ants before buffered data is dropped",
                              UintegerValue(3),
                              MakeUintegerAccessor(&AntHocNetRouting::m_maxReactiveRetries),
                              MakeUintegerChecker<uint32_t>())
                .AddAttribute("RepairTimeout",
                              "wait for a repair backward ant before dropping",
                              TimeValue(MilliSeconds(500)),
                              MakeTimeAccessor(&AntHocNetRouting::m_repairTimeout),
                              MakeTimeChecker())
                .AddAttribute("MaxHops", "forward ants die after this many hops",
                              UintegerValue(20),
                              MakeUintegerAccessor(&AntHocNetRouting::m_maxHops),
                              MakeUintegerChecker<uint32_t>(1, 255))
                .AddAttribute("MaxDiffusionHops",
                              "virtual pheromone is not advertised beyond this many hops",
                              UintegerValue(10),
                              MakeUintegerAccessor(&AntHocNetRouting::m_maxDiffusionHops),
                              MakeUintegerChecker<uint32_t>(1, 255))
                .AddAttribute("BufferSize", "data packets buffered while routes are searched",
                              UintegerValue(64),
                              MakeUintegerAccessor(&AntHocNetRouting::m_bufferSize),
                              MakeUintegerChecker<uint32_t>())
                .AddAttribute("MacFailureLimit",
                              "consecutive unicast frames to a neighbour dropped at the MAC "
                              "retry limit that count as a link failure (0: hellos only)",
                              UintegerValue(1),
                              MakeUintegerAccessor(&AntHocNetRouting::m_macFailureLimit),
                              MakeUintegerChecker<uint32_t>())
                .AddAttribute("MaxHelloDestinations",
                              "destinations advertised in a hello, best pheromone first "
                              "(0: all)",
                              UintegerValue(0),
                              MakeUintegerAccessor(&AntHocNetRouting::m_maxHelloDest),
                              MakeUintegerChecker<uint32_t>())
                .AddAttribute("BroadcastJitter", "maximum random delay of a broadcast",
                              TimeValue(MilliSeconds(10)),
                              MakeTimeAccessor(&AntHocNetRouting::m_jitter),
                              MakeTimeChecker());
        return tid;
    }

    AntHocNetRouting()
    {
        m_rng = CreateObject<UniformRandomVariable>();
    }

    int64_t AssignStreams(int64_t stream)
    {
        m_rng->SetStream(stream);
        return 1;
    }

    const Counters& GetCounters() const { return m_c; }

    // ---- Ipv4RoutingProtocol -------------------------------------------

    Ptr<Ipv4Route> RouteOutput(Ptr<Packet> p, const Ipv4Header& header, Ptr<NetDevice> oif,
                               Socket::SocketErrno& sockerr) override
    {
        Ipv4Address dst = header.GetDestination();
        if (m_ifaces.empty())
        {
            sockerr = Socket::ERROR_NOROUTETOHOST;
            return nullptr;
        }
        if (dst.IsMulticast() || dst.IsBroadcast() || dst.IsLocalhost())
        {
            sockerr = Socket::ERROR_NOROUTETOHOST;
            return nullptr;
        }
        sockerr = Socket::ERROR_NOTERROR;
        if (m_sendingControl)
        {
            // Our own unicast control message to a neighbour: one hop.
            auto it = m_nb.find(dst);
            uint32_t iface = it != m_nb.end() ? it->second.iface : m_ifaces.begin()->first;
            return MakeRoute(dst, dst, iface);
        }
        Ipv4Address nh;
        if (p && ChooseNextHop(dst, m_beta2, false, Ipv4Address(), nh))
        {
            NoteSession(dst);
            return MakeRoute(dst, nh, m_nb[nh].iface);
        }
        // No route (or no packet, e.g. TCP asking for a source address):
        // hand the packet to the loopback device; it comes back through
        // RouteInput, which buffers it and starts a reactive route set-up.
        return LoopbackRoute(dst);
    }

    bool RouteInput(Ptr<const Packet> p, const Ipv4Header& header, Ptr<const NetDevice> idev,
                    UnicastForwardCallback ucb, MulticastForwardCallback mcb,
                    LocalDeliverCallback lcb, ErrorCallback ecb) override
    {
        if (m_ifaces.empty())
        {
            return false;
        }
        Ipv4Address dst = header.GetDestination();
        int32_t iif = m_ipv4->GetInterfaceForDevice(idev);
        if (dst.IsMulticast())
        {
            return false;
        }
        // Local delivery: our address or a broadcast.
        if (m_ipv4->IsDestinationAddress(dst, iif))
        {
            if (!lcb.IsNull())
            {
                lcb(p, header, iif);
                return true;
            }
            return false;
        }
        for (auto& kv : m_ifaces)
        {
            if (dst == kv.second.GetBroadcast())
            {
                if (!lcb.IsNull())
                {
                    lcb(p, header, iif);
                }
                return true;
            }
        }
        if (dst.IsBroadcast())
        {
            return false;
        }
        bool local = idev == m_lo; // deferred from RouteOutput
        if (!local && m_ipv4->IsForwarding(iif) == false)
        {
            ecb(p, header, Socket::ERROR_NOROUTETOHOST);
            return true;
        }
        if (local)
        {
            NoteSession(dst);
        }
        Ipv4Address nh;
        if (ChooseNextHop(dst, m_beta2, false, Ipv4Address(), nh))
        {
            ucb(MakeRoute(dst, nh, m_nb[nh].iface), p, header);
            return true;
        }
        // No pheromone: buffer and search. The source starts a reactive
        // path set-up, an intermediate node a local repair.
        Buffer(dst, Queued{p, header, ucb, ecb, Simulator::Now()});
        if (local)
        {
            StartReactive(dst);
        }
        else
        {
            StartRepair(dst);
        }
        return true;
    }

    void NotifyInterfaceUp(uint32_t i) override
    {
        Ptr<Ipv4L3Protocol> l3 = m_ipv4->GetObject<Ipv4L3Protocol>();
        if (l3->GetNAddresses(i) == 0)
        {
            return;
        }
        Ipv4InterfaceAddress a = l3->GetAddress(i, 0);
        if (a.GetLocal() == Ipv4Address::GetLoopback())
        {
            return;
        }
        OpenInterface(i, a);
    }

    void NotifyInterfaceDown(uint32_t i) override
    {
        auto it = m_sockets.find(i);
        if (it != m_sockets.end())
        {
            it->second->Close();
            m_sockets.erase(it);
        }
        m_ifaces.erase(i);
    }

    void NotifyAddAddress(uint32_t i, Ipv4InterfaceAddress a) override
    {
        if (m_ipv4->IsUp(i) && a.GetLocal() != Ipv4Address::GetLoopback() && !m_ifaces.count(i))
        {
            OpenInterface(i, a);
        }
    }

    void NotifyRemoveAddress(uint32_t i, Ipv4InterfaceAddress) override
    {
        NotifyInterfaceDown(i);
    }

    void SetIpv4(Ptr<Ipv4> ipv4) override
    {
        m_ipv4 = ipv4;
        m_lo = ipv4->GetNetDevice(0);
        Simulator::ScheduleNow(&AntHocNetRouting::Start, this);
    }

    void PrintRoutingTable(Ptr<OutputStreamWrapper> stream, Time::Unit unit) const override
    {
        std::ostream& os = *stream->GetStream();
        os << "AntHocNet pheromone table of node " << m_ipv4->GetObject<Node>()->GetId()
           << " at " << Simulator::Now().As(unit) << "\n";
        for (auto& d : m_pher)
        {
            for (auto& n : d.second)
            {
                os << d.first << " via " << n.first << " reg=" << n.second.reg
                   << " virt=" << n.second.virt << "\n";
            }
        }
    }

  protected:
    void DoDispose() override
    {
        for (auto& s : m_sockets)
        {
            s.second->Close();
        }
        m_sockets.clear();
        m_helloEvent.Cancel();
        for (auto& e : m_reactive)
        {
            e.second.timer.Cancel();
        }
        for (auto& e : m_repair)
        {
            e.second.Cancel();
        }
        for (auto& e : m_sessions)
        {
            e.second.timer.Cancel();
        }
        m_ipv4 = nullptr;
        m_lo = nullptr;
        Ipv4RoutingProtocol::DoDispose();
    }

  private:
    struct Reactive
    {
        uint32_t tries = 0;
        EventId timer;
    };
    struct Session
    {
        Time lastData;
        EventId timer;
    };
    struct SeenAnt
    {
        uint32_t bestHops = 0;
        double bestTime = 0;
        Time when;
    };

    // ---- set-up ----------------------------------------------------------

    void OpenInterface(uint32_t i, Ipv4InterfaceAddress a)
    {
        m_ifaces[i] = a;
        Ptr<Node> node = m_ipv4->GetObject<Node>();
        Ptr<Socket> s = Socket::CreateSocket(node, UdpSocketFactory::GetTypeId());
        s->SetRecvCallback(MakeCallback(&AntHocNetRouting::Recv, this));
        s->BindToNetDevice(m_ipv4->GetNetDevice(i));
        s->Bind(InetSocketAddress(Ipv4Address::GetAny(), kPort));
        s->SetAllowBroadcast(true);
        m_sockets[i] = s;
        Ptr<WifiNetDevice> wd = DynamicCast<WifiNetDevice>(m_ipv4->GetNetDevice(i));
        if (wd)
        {
            Ptr<WifiMac> mac = wd->GetMac();
            mac->TraceConnectWithoutContext("DroppedMpdu",
                                            MakeCallback(&AntHocNetRouting::MacDrop, this));
            mac->TraceConnectWithoutContext("MacTx",
                                            MakeCallback(&AntHocNetRouting::MacEnqueue, this));
            wd->GetPhy()->TraceConnectWithoutContext(
                "PhyTxEnd",
                MakeCallback(&AntHocNetRouting::PhyTxEnd, this));
            m_macs[i] = mac;
        }
    }

    void Start()
    {
        if (m_started)
        {
            return;
        }
        m_started = true;
        m_helloEvent = Simulator::Schedule(
            Seconds(m_rng->GetValue(0, m_helloInterval.GetSeconds())),
            &AntHocNetRouting::SendHello,
            this);
    }

    // ---- local time estimate T^_i = (Q_mac + 1) * T_mac (ETT 3.1) --------

    void MacEnqueue(Ptr<const Packet> p) { m_enq[p->GetUid()] = Simulator::Now(); }

    void PhyTxEnd(Ptr<const Packet> p)
    {
        auto it = m_enq.find(p->GetUid());
        if (it == m_enq.end())
        {
            return;
        }
        double t = (Simulator::Now() - it->second).GetSeconds();
        m_enq.erase(it);
        m_tMac = m_haveTMac ? m_alpha * m_tMac + (1 - m_alpha) * t : t;
        m_haveTMac = true;
        if (m_enq.size() > 4096)
        {
            m_enq.clear(); // frames that never reached the air
        }
    }

    double LocalTime() const
    {
        double q = 0;
        for (auto& m : m_macs)
        {
            Ptr<Txop> txop = m.second->GetTxop();
            if (txop)
            {
                q += txop->GetWifiMacQueue()->GetNPackets();
            }
        }
        return (q + 1) * (m_haveTMac ? m_tMac : m_tHop.GetSeconds());
    }

    // 1/tau of one hop, so that 1/tau of a path is the sum over its hops:
    // tau = ((T + h T_hop) / 2)^-1 (ETT eq. 1).
    double HopCost(double localTime) const { return (localTime + m_tHop.GetSeconds()) / 2; }

    // ---- pheromone ---------------------------------------------------------

    bool ChooseNextHop(Ipv4Address dst, double beta, bool useVirtual, Ipv4Address exclude,
                       Ipv4Address& out)
    {
        auto dit = m_pher.find(dst);
        if (dit == m_pher.end())
        {
            return false;
        }
        std::vector<std::pair<Ipv4Address, double>> cand;
        double sum = 0;
        for (auto& n : dit->second)
        {
            if (n.first == exclude || !m_nb.count(n.first))
            {
                continue;
            }
            double v = useVirtual ? std::max(n.second.reg, n.second.virt) : n.second.reg;
            if (v <= 0)
            {
                continue;
            }
            double w = std::pow(v / Best(dst, useVirtual), beta); // scaled: no overflow
            cand.emplace_back(n.first, w);
            sum += w;
        }
        if (cand.empty() || !(sum > 0))
        {
            return false;
        }
        double r = m_rng->GetValue(0, sum);
        for (auto& c : cand)
        {
            if (r < c.second)
            {
                out = c.first;
                return true;
            }
            r -= c.second;
        }
        out = cand.back().first;
        return true;
    }

    double Best(Ipv4Address dst, bool useVirtual) const
    {
        double b = 0;
        auto dit = m_pher.find(dst);
        if (dit == m_pher.end())
        {
            return 0;
        }
        for (auto& n : dit->second)
        {
            if (!m_nb.count(n.first))
            {
                continue;
            }
            b = std::max(b, useVirtual ? std::max(n.second.reg, n.second.virt) : n.second.reg);
        }
        return b;
    }

    bool HasRoute(Ipv4Address dst) const { return Best(dst, false) > 0; }

    void UpdatePher(Ipv4Address dst, Ipv4Address nb, double tau, uint32_t hops)
    {
        Pher& e = m_pher[dst][nb];
        e.reg = e.reg > 0 ? m_gamma * e.reg + (1 - m_gamma) * tau : tau;
        e.regHops = std::min<uint32_t>(hops, 255);
    }

    // ---- data buffering and sessions --------------------------------------

    void Buffer(Ipv4Address dst, const Queued& q)
    {
        auto& b = m_buf[dst];
        if (b.size() >= m_bufferSize)
        {
            Queued old = b.front();
            b.pop_front();
            m_c.dataNoRouteDrops++;
            old.ecb(old.p, old.h, Socket::ERROR_NOROUTETOHOST);
        }
        b.push_back(q);
    }

    void Flush(Ipv4Address dst)
    {
        auto it = m_buf.find(dst);
        if (it == m_buf.end())
        {
            return;
        }
        std::deque<Queued> q;
        q.swap(it->second);
        m_buf.erase(it);
        for (auto& e : q)
        {
            Ipv4Address nh;
            if (ChooseNextHop(dst, m_beta2, false, Ipv4Address(), nh))
            {
                e.ucb(MakeRoute(dst, nh, m_nb[nh].iface), e.p, e.h);
            }
            else
            {
                m_c.dataNoRouteDrops++;
                e.ecb(e.p, e.h, Socket::ERROR_NOROUTETOHOST);
            }
        }
    }

    void DropBuffer(Ipv4Address dst)
    {
        auto it = m_buf.find(dst);
        if (it == m_buf.end())
        {
            return;
        }
        std::deque<Queued> q;
        q.swap(it->second);
        m_buf.erase(it);
        for (auto& e : q)
        {
            m_c.dataNoRouteDrops++;
            e.ecb(e.p, e.h, Socket::ERROR_NOROUTETOHOST);
        }
    }

    // A data session from this node to dst is active while data flows; it
    // drives the proactive forward ants (ETT 3.3).
    void NoteSession(Ipv4Address dst)
    {
        Session& s = m_sessions[dst];
        s.lastData = Simulator::Now();
        if (!s.timer.IsRunning())
        {
            s.timer = Simulator::Schedule(m_proactiveInterval, &AntHocNetRouting::ProactiveTick,
                                          this, dst);
        }
    }

    void ProactiveTick(Ipv4Address dst)
    {
        Session& s = m_sessions[dst];
        if (Simulator::Now() - s.lastData > m_sessionTimeout)
        {
            m_sessions.erase(dst);
            return;
        }
        if (HasRoute(dst))
        {
            Ant a;
            a.kind = kProactive;
            a.origin = MainAddress();
            a.id = ++m_antSeq;
            a.dest = dst;
            a.path.push_back(a.origin);
            ForwardAnt(a, Ipv4Address());
        }
        s.timer =
            Simulator::Schedule(m_proactiveInterval, &AntHocNetRouting::ProactiveTick, this, dst);
    }

    // ---- reactive set-up and local repair (ETT 3.2, 3.4) -------------------

    void StartReactive(Ipv4Address dst)
    {
        Reactive& r = m_reactive[dst];
        if (r.timer.IsRunning())
        {
            return;
        }
        r.tries++;
        Ant a;
        a.kind = kReactive;
        a.origin = MainAddress();
        a.id = ++m_antSeq;
        a.dest = dst;
        a.path.push_back(a.origin);
        m_seen[Key(a)] = SeenAnt{0, 0, Simulator::Now()};
        ForwardAnt(a, Ipv4Address());
        r.timer = Simulator::Schedule(m_reactiveTimeout, &AntHocNetRouting::ReactiveTimeout, this,
                                      dst);
    }

    void ReactiveTimeout(Ipv4Address dst)
    {
        Reactive& r = m_reactive[dst];
        if (HasRoute(dst))
        {
            m_reactive.erase(dst);
            Flush(dst);
            return;
        }
        if (r.tries >= m_maxReactiveRetries)
        {
            m_reactive.erase(dst);
            DropBuffer(dst);
            return;
        }
        StartReactive(dst);
    }

    void StartRepair(Ipv4Address dst)
    {
        if (m_repair[dst].IsRunning())
        {
            return;
        }
        m_c.localRepairs++;
        Ant a;
        a.kind = kRepair;
        a.origin = MainAddress();
        a.id = ++m_antSeq;
        a.dest = dst;
        a.path.push_back(a.origin);
        m_seen[Key(a)] = SeenAnt{0, 0, Simulator::Now()};
        ForwardAnt(a, Ipv4Address());
        m_repair[dst] =
            Simulator::Schedule(m_repairTimeout, &AntHocNetRouting::RepairTimeout, this, dst);
    }

    void RepairTimeout(Ipv4Address dst)
    {
        m_repair.erase(dst);
        if (HasRoute(dst))
        {
            Flush(dst);
            return;
        }
        DropBuffer(dst);
        // The repair failed: tell the neighbours that we have no path.
        std::vector<std::pair<Ipv4Address, double>> lost{{dst, 0.0}};
        SendLinkFailure(lost);
    }

    // ---- forward ants ---------------------------------------------------------

    static uint64_t Key(const Ant& a) { return (uint64_t(a.origin.Get()) << 32) | a.id; }

    // ForwardAnt sends ant a (already holding this node at the end of its
    // path) on: unicast over pheromone where there is some, else broadcast.
    void ForwardAnt(Ant& a, Ipv4Address from)
    {
        if (a.path.size() > m_maxHops)
        {
            return;
        }
        a.time += LocalTime();
        bool useVirtual = a.kind == kProactive;
        Ipv4Address nh;
        bool bcast = false;
        if (a.kind == kRepair && a.path.size() == 1)
        {
            bcast = true; // the repairing node has no pheromone left
        }
        else if (a.kind == kProactive && m_rng->GetValue() < m_proBcastProb)
        {
            bcast = true; // exploration (ETT 3.3)
        }
        else if (!ChooseNextHop(a.dest, m_beta1, useVirtual, from, nh))
        {
            bcast = true;
        }
        if (bcast)
        {
            if ((a.kind == kProactive && a.broadcasts >= m_maxProBcast) ||
                (a.kind == kRepair && a.broadcasts >= m_maxRepairBcast))
            {
                return;
            }
            a.broadcasts++;
            Writer w = EncodeAnt(kForwardAnt, a);
            Count(a.kind, w.b.size() + 28);
            Ptr<Packet> p = w.Packet_();
            Simulator::Schedule(Seconds(m_rng->GetValue(0, m_jitter.GetSeconds())),
                                &AntHocNetRouting::SendBroadcast, this, p);
            return;
        }
        Writer w = EncodeAnt(kForwardAnt, a);
        Count(a.kind, w.b.size() + 28);
        SendUnicast(w.Packet_(), nh);
    }

    void Count(uint8_t kind, uint64_t bytes)
    {
        switch (kind)
        {
        case kReactive:
            m_c.reactiveFantPkts++;
            m_c.reactiveFantBytes += bytes;
            break;
        case kProactive:
            m_c.proactiveFantPkts++;
            m_c.proactiveFantBytes += bytes;
            break;
        default:
            m_c.repairFantPkts++;
            m_c.repairFantBytes += bytes;
        }
    }

    void RecvForwardAnt(Ant& a, Ipv4Address from)
    {
        Ipv4Address me = MainAddress();
        for (auto& n : a.path)
        {
            if (n == me)
            {
                return; // loop
            }
        }
        a.path.push_back(me);
        uint32_t hops = a.path.size() - 1;
        // Copies of one ant that reach a node over different paths: keep the
        // first, accept later ones only when both their hop count and their
        // time are within the factor a1 of the best copy so far (ETT 3.2).
        uint64_t key = Key(a);
        auto sit = m_seen.find(key);
        if (sit != m_seen.end())
        {
            SeenAnt& s = sit->second;
            if (s.bestHops == 0 || hops * m_a1 > s.bestHops || a.time * m_a1 > s.bestTime)
            {
                return;
            }
            s.bestHops = std::min(s.bestHops, hops);
            s.bestTime = std::min(s.bestTime, a.time);
        }
        else
        {
            m_seen[key] = SeenAnt{hops, a.time, Simulator::Now()};
            if (m_seen.size() > 20000)
            {
                PurgeSeen();
            }
        }
        if (IsLocal(a.dest))
        {
            // Destination reached: the ant becomes a backward ant and walks
            // its path back (ETT 3.2).
            Ant b = a;
            b.time = 0;
            SendBackward(b, b.path.size() - 1);
            return;
        }
        ForwardAnt(a, from);
    }

    void PurgeSeen()
    {
        Time old = Simulator::Now() - Seconds(10);
        for (auto it = m_seen.begin(); it != m_seen.end();)
        {
            it = it->second.when < old ? m_seen.erase(it) : std::next(it);
        }
    }

    // ---- backward ants ----------------------------------------------------------

    // SendBackward sends backward ant b from path[idx] (this node) to
    // path[idx-1], after adding this node's time estimate.
    void SendBackward(Ant& b, size_t idx)
    {
        if (idx == 0)
        {
            return;
        }
        b.time += LocalTime();
        Ipv4Address next = b.path[idx - 1];
        if (!m_nb.count(next))
        {
            return; // the path broke under the ant
        }
        Writer w = EncodeAnt(kBackwardAnt, b);
        m_c.bantPkts++;
        m_c.bantBytes += w.b.size() + 28;
        SendUnicast(w.Packet_(), next);
    }

    void RecvBackwardAnt(Ant& b, Ipv4Address from)
    {
        Ipv4Address me = MainAddress();
        size_t idx = b.path.size();
        for (size_t k = 0; k < b.path.size(); k++)
        {
            if (b.path[k] == me)
            {
                idx = k;
                break;
            }
        }
        if (idx == b.path.size() || idx + 1 >= b.path.size() || b.path[idx + 1] != from)
        {
            return;
        }
        // Pheromone for destination d = b.dest over neighbour `from`:
        // tau = ((T + h T_hop) / 2)^-1, T_nd <- gamma T_nd + (1-gamma) tau.
        uint32_t h = b.path.size() - 1 - idx;
        double tau = 1.0 / ((b.time + h * m_tHop.GetSeconds()) / 2);
        UpdatePher(b.dest, from, tau, h);
        if (idx == 0)
        {
            if (m_reactive.count(b.dest))
            {
                m_reactive[b.dest].timer.Cancel();
                m_reactive.erase(b.dest);
            }
            Flush(b.dest);
            return;
        }
        if (b.kind == kRepair && b.path[0] == me)
        {
            Flush(b.dest);
        }
        if (m_repair.count(b.dest) && HasRoute(b.dest))
        {
            m_repair[b.dest].Cancel();
            m_repair.erase(b.dest);
            Flush(b.dest);
        }
        SendBackward(b, idx);
    }

    // ---- hello messages and pheromone diffusion (ETT 3.3) ----------------------

    void SendHello()
    {
        Writer w;
        w.U8(kHello);
        w.Addr(MainAddress());
        uint8_t mac[6] = {0};
        if (!m_macs.empty())
        {
            m_macs.begin()->second->GetAddress().CopyTo(mac);
        }
        for (uint8_t x : mac)
        {
            w.U8(x);
        }
        w.F64(LocalTime());
        // Best pheromone (regular or virtual) per destination, with its hop
        // count, for the neighbours' bootstrapping.
        std::vector<std::tuple<Ipv4Address, double, uint8_t>> adv;
        for (auto& d : m_pher)
        {
            double best = 0;
            uint8_t hops = 0;
            for (auto& n : d.second)
            {
                if (!m_nb.count(n.first))
                {
                    continue;
                }
                if (n.second.reg > best)
                {
                    best = n.second.reg;
                    hops = std::max<uint8_t>(n.second.regHops, 1);
                }
                if (n.second.virt > best)
                {
                    best = n.second.virt;
                    hops = n.second.virtHops;
                }
            }
            if (best > 0 && hops < m_maxDiffusionHops)
            {
                adv.emplace_back(d.first, best, hops);
            }
        }
        if (m_maxHelloDest > 0 && adv.size() > m_maxHelloDest)
        {
            std::sort(adv.begin(), adv.end(), [](const auto& a, const auto& b) {
                return std::get<1>(a) > std::get<1>(b);
            });
            adv.resize(m_maxHelloDest);
        }
        w.U16(adv.size());
        for (auto& e : adv)
        {
            w.Addr(std::get<0>(e));
            w.F64(std::get<1>(e));
            w.U8(std::get<2>(e));
        }
        m_c.helloPkts++;
        m_c.helloBytes += w.b.size() + 28;
        SendBroadcast(w.Packet_());
        CheckNeighbours();
        double j = m_rng->GetValue(-0.05, 0.05) * m_helloInterval.GetSeconds();
        m_helloEvent = Simulator::Schedule(m_helloInterval + Seconds(j),
                                           &AntHocNetRouting::SendHello, this);
    }

    void RecvHello(Reader& r, Ipv4Address from, uint32_t iface)
    {
        Ipv4Address who = r.Addr();
        uint8_t mac[6];
        for (auto& x : mac)
        {
            x = r.U8();
        }
        double theirTime = r.F64();
        uint16_t n = r.U16();
        if (!r.Ok() || who != from)
        {
            return;
        }
        bool fresh = !m_nb.count(from);
        Neighbour& nb = m_nb[from];
        nb.iface = iface;
        nb.lastHeard = Simulator::Now();
        nb.macFailures = 0;
        nb.mac.CopyFrom(mac);
        m_macToNb[nb.mac] = from;
        m_ipToMac[from] = nb.mac;
        // The neighbour itself is a destination one hop away.
        double hop = HopCost(std::max(LocalTime(), theirTime));
        if (fresh || m_pher[from][from].reg <= 0)
        {
            m_pher[from][from].reg = 1.0 / hop;
            m_pher[from][from].regHops = 1;
        }
        else
        {
            UpdatePher(from, from, 1.0 / hop, 1);
        }
        std::set<Ipv4Address> listed;
        for (uint16_t k = 0; k < n; k++)
        {
            Ipv4Address d = r.Addr();
            double v = r.F64();
            uint8_t hops = r.U8();
            if (!r.Ok())
            {
                return;
            }
            if (IsLocal(d) || d == from || !(v > 0))
            {
                continue;
            }
            listed.insert(d);
            // Bootstrapped pheromone: 1/kappa = 1/v + cost of the hop to n.
            double kappa = 1.0 / (1.0 / v + hop);
            Pher& e = m_pher[d][from];
            e.virt = kappa;
            e.virtHops = hops + 1;
            if (e.reg > 0)
            {
                // Regular pheromone follows the bootstrapped estimate, so
                // that paths that got worse are noticed between ants.
                e.reg = m_gamma * e.reg + (1 - m_gamma) * kappa;
            }
        }
        // Destinations the neighbour no longer advertises lose their virtual
        // pheromone over it.
        for (auto& d : m_pher)
        {
            if (d.first == from || listed.count(d.first))
            {
                continue;
            }
            auto it = d.second.find(from);
            if (it != d.second.end())
            {
                it->second.virt = 0;
            }
        }
        if (fresh)
        {
            for (auto& d : std::vector<Ipv4Address>(BufferedDests()))
            {
                if (HasRoute(d))
                {
                    Flush(d);
                }
            }
        }
    }

    std::vector<Ipv4Address> BufferedDests() const
    {
        std::vector<Ipv4Address> v;
        for (auto& b : m_buf)
        {
            v.push_back(b.first);
        }
        return v;
    }

    void CheckNeighbours()
    {
        Time limit = m_helloInterval * m_allowedHelloLoss + m_helloInterval / 2;
        std::vector<Ipv4Address> lost;
        for (auto& n : m_nb)
        {
            if (Simulator::Now() - n.second.lastHeard > limit)
            {
                lost.push_back(n.first);
            }
        }
        for (auto& n : lost)
        {
            LinkFailed(n);
        }
    }

    // ---- link failures (ETT 3.4) -------------------------------------------------

    void MacDrop(WifiMacDropReason reason, Ptr<const WifiMpdu> mpdu)
    {
        if (reason != WIFI_MAC_DROP_REACHED_RETRY_LIMIT)
        {
            return;
        }
        auto it = m_macToNb.find(mpdu->GetHeader().GetAddr1());
        if (m_macFailureLimit == 0 || it == m_macToNb.end() || !m_nb.count(it->second))
        {
            return;
        }
        Neighbour& nb = m_nb[it->second];
        if (++nb.macFailures >= m_macFailureLimit)
        {
            LinkFailed(it->second);
        }
    }

    // LinkFailed removes neighbour n and its pheromone; destinations whose
    // best path went over n are announced in a link failure notification
    // with the new best estimate (0 if none is left).
    void LinkFailed(Ipv4Address n)
    {
        if (!m_nb.count(n))
        {
            return;
        }
        m_c.linkFailures++;
        std::vector<Ipv4Address> wasBest;
        for (auto& d : m_pher)
        {
            auto it = d.second.find(n);
            if (it == d.second.end() || it->second.reg <= 0)
            {
                continue;
            }
            if (it->second.reg >= Best(d.first, false))
            {
                wasBest.push_back(d.first);
            }
        }
        m_macToNb.erase(m_nb[n].mac);
        m_nb.erase(n);
        for (auto& d : m_pher)
        {
            d.second.erase(n);
        }
        std::vector<std::pair<Ipv4Address, double>> notify;
        for (auto& d : wasBest)
        {
            if (d == n)
            {
                continue;
            }
            notify.emplace_back(d, Best(d, false));
            if (!HasRoute(d) && m_sessions.count(d))
            {
                // A source that loses its last path starts over.
                StartReactive(d);
            }
        }
        if (!notify.empty())
        {
            SendLinkFailure(notify);
        }
    }

    void SendLinkFailure(const std::vector<std::pair<Ipv4Address, double>>& entries)
    {
        Writer w;
        w.U8(kLinkFailure);
        w.Addr(MainAddress());
        w.U16(entries.size());
        for (auto& e : entries)
        {
            w.Addr(e.first);
            w.F64(e.second);
        }
        m_c.lfnPkts++;
        m_c.lfnBytes += w.b.size() + 28;
        Ptr<Packet> p = w.Packet_();
        Simulator::Schedule(Seconds(m_rng->GetValue(0, m_jitter.GetSeconds())),
                            &AntHocNetRouting::SendBroadcast, this, p);
    }

    void RecvLinkFailure(Reader& r, Ipv4Address from)
    {
        Ipv4Address who = r.Addr();
        uint16_t n = r.U16();
        if (!r.Ok() || who != from || !m_nb.count(from))
        {
            return;
        }
        double hop = HopCost(LocalTime());
        std::vector<std::pair<Ipv4Address, double>> notify;
        for (uint16_t k = 0; k < n; k++)
        {
            Ipv4Address d = r.Addr();
            double v = r.F64();
            if (!r.Ok())
            {
                return;
            }
            auto dit = m_pher.find(d);
            if (dit == m_pher.end() || !dit->second.count(from) || dit->second[from].reg <= 0)
            {
                continue;
            }
            bool wasBest = dit->second[from].reg >= Best(d, false);
            if (v > 0)
            {
                dit->second[from].reg = 1.0 / (1.0 / v + hop);
            }
            else
            {
                dit->second.erase(from);
            }
            if (wasBest)
            {
                double nb = Best(d, false);
                notify.emplace_back(d, nb);
                if (nb <= 0 && m_sessions.count(d))
                {
                    StartReactive(d);
                }
            }
        }
        if (!notify.empty())
        {
            SendLinkFailure(notify);
        }
    }

    // ---- sockets ------------------------------------------------------------------

    Writer EncodeAnt(uint8_t type, const Ant& a) const
    {
        Writer w;
        w.U8(type);
        w.U8(a.kind);
        w.Addr(a.origin);
        w.U32(a.id);
        w.Addr(a.dest);
        w.U8(a.broadcasts);
        w.F64(a.time);
        w.U8(a.path.size());
        for (auto& n : a.path)
        {
            w.Addr(n);
        }
        return w;
    }

    static bool DecodeAnt(Reader& r, Ant& a)
    {
        a.kind = r.U8();
        a.origin = r.Addr();
        a.id = r.U32();
        a.dest = r.Addr();
        a.broadcasts = r.U8();
        a.time = r.F64();
        uint8_t n = r.U8();
        for (uint8_t k = 0; k < n; k++)
        {
            a.path.push_back(r.Addr());
        }
        return r.Ok() && !a.path.empty();
    }

    void SendBroadcast(Ptr<Packet> p)
    {
        for (auto& s : m_sockets)
        {
            s.second->SendTo(p->Copy(), 0, InetSocketAddress(Ipv4Address("255.255.255.255"), kPort));
        }
    }

    void SendUnicast(Ptr<Packet> p, Ipv4Address nb)
    {
        auto it = m_nb.find(nb);
        if (it == m_nb.end() || !m_sockets.count(it->second.iface))
        {
            return;
        }
        m_sendingControl = true;
        m_sockets[it->second.iface]->SendTo(p, 0, InetSocketAddress(nb, kPort));
        m_sendingControl = false;
    }

    void Recv(Ptr<Socket> s)
    {
        Address addr;
        Ptr<Packet> p;
        while ((p = s->RecvFrom(addr)))
        {
            Ipv4Address from = InetSocketAddress::ConvertFrom(addr).GetIpv4();
            if (IsLocal(from))
            {
                continue;
            }
            uint32_t iface = 0;
            for (auto& k : m_sockets)
            {
                if (k.second == s)
                {
                    iface = k.first;
                }
            }
            Reader r(p);
            uint8_t type = r.U8();
            if (type != kHello)
            {
                // Any message proves the link: a neighbour dropped after a
                // MAC failure is back at once, not only at its next hello.
                auto mit = m_ipToMac.find(from);
                if (!m_nb.count(from) && mit != m_ipToMac.end())
                {
                    m_nb[from].iface = iface;
                    m_nb[from].mac = mit->second;
                    m_macToNb[mit->second] = from;
                }
                if (m_nb.count(from))
                {
                    m_nb[from].lastHeard = Simulator::Now();
                    m_nb[from].macFailures = 0;
                }
            }
            switch (type)
            {
            case kHello:
                RecvHello(r, from, iface);
                break;
            case kForwardAnt: {
                Ant a;
                if (DecodeAnt(r, a) && m_nb.count(from))
                {
                    RecvForwardAnt(a, from);
                }
                break;
            }
            case kBackwardAnt: {
                Ant b;
                if (DecodeAnt(r, b))
                {
                    RecvBackwardAnt(b, from);
                }
                break;
            }
            case kLinkFailure:
                RecvLinkFailure(r, from);
                break;
            default:
                break;
            }
        }
    }

    // ---- helpers ---------------------------------------------------------------------

    Ipv4Address MainAddress() const
    {
        return m_ifaces.empty() ? Ipv4Address() : m_ifaces.begin()->second.GetLocal();
    }

    bool IsLocal(Ipv4Address a) const
    {
        for (auto& kv : m_ifaces)
        {
            if (kv.second.GetLocal() == a)
            {
                return true;
            }
        }
        return false;
    }

    Ptr<Ipv4Route> MakeRoute(Ipv4Address dst, Ipv4Address gw, uint32_t iface)
    {
        Ptr<Ipv4Route> rt = Create<Ipv4Route>();
        rt->SetDestination(dst);
        rt->SetGateway(gw);
        rt->SetOutputDevice(m_ipv4->GetNetDevice(iface));
        rt->SetSource(m_ifaces.count(iface) ? m_ifaces[iface].GetLocal() : MainAddress());
        return rt;
    }

    Ptr<Ipv4Route> LoopbackRoute(Ipv4Address dst)
    {
        Ptr<Ipv4Route> rt = Create<Ipv4Route>();
        rt->SetDestination(dst);
        rt->SetGateway(Ipv4Address::GetLoopback());
        rt->SetOutputDevice(m_lo);
        rt->SetSource(MainAddress());
        return rt;
    }

    // parameters (attributes)
    double m_gamma = 0.7;
    double m_alpha = 0.7;
    Time m_tHop = MilliSeconds(3);
    double m_beta1 = 20;
    double m_beta2 = 2;
    double m_a1 = 0.9;
    Time m_helloInterval = Seconds(1);
    uint32_t m_allowedHelloLoss = 2;
    Time m_proactiveInterval = Seconds(1);
    double m_proBcastProb = 0.1;
    uint32_t m_maxProBcast = 2;
    uint32_t m_maxRepairBcast = 2;
    Time m_sessionTimeout = Seconds(5);
    Time m_reactiveTimeout = Seconds(1);
    uint32_t m_maxReactiveRetries = 3;
    Time m_repairTimeout = MilliSeconds(500);
    uint32_t m_maxHops = 20;
    uint32_t m_maxDiffusionHops = 10;
    uint32_t m_bufferSize = 64;
    uint32_t m_macFailureLimit = 1;
    uint32_t m_maxHelloDest = 0;
    Time m_jitter = MilliSeconds(10);

    // state
    Ptr<Ipv4> m_ipv4;
    Ptr<NetDevice> m_lo;
    Ptr<UniformRandomVariable> m_rng;
    bool m_started = false;
    bool m_sendingControl = false;
    std::map<uint32_t, Ipv4InterfaceAddress> m_ifaces;
    std::map<uint32_t, Ptr<Socket>> m_sockets;
    std::map<uint32_t, Ptr<WifiMac>> m_macs;
    std::map<Ipv4Address, Neighbour> m_nb;
    std::map<Mac48Address, Ipv4Address> m_macToNb;
    std::map<Ipv4Address, Mac48Address> m_ipToMac; // every node ever heard in a hello
    std::map<Ipv4Address, std::map<Ipv4Address, Pher>> m_pher;
    std::map<Ipv4Address, std::deque<Queued>> m_buf;
    std::map<Ipv4Address, Reactive> m_reactive;
    std::map<Ipv4Address, EventId> m_repair;
    std::map<Ipv4Address, Session> m_sessions;
    std::unordered_map<uint64_t, SeenAnt> m_seen;
    std::unordered_map<uint64_t, Time> m_enq;
    uint32_t m_antSeq = 0;
    double m_tMac = 0;
    bool m_haveTMac = false;
    EventId m_helloEvent;
    Counters m_c;
};

// Registered at start-up, so that --ns3::tcpviz::AntHocNetRouting::X=Y works
// on the command line.
NS_OBJECT_ENSURE_REGISTERED(AntHocNetRouting);

// AntHocNetHelper installs AntHocNetRouting, like AodvHelper.
class AntHocNetHelper : public Ipv4RoutingHelper
{
  public:
    AntHocNetHelper() { m_factory.SetTypeId(AntHocNetRouting::GetTypeId()); }
    AntHocNetHelper* Copy() const override { return new AntHocNetHelper(*this); }
    Ptr<Ipv4RoutingProtocol> Create(Ptr<Node> node) const override
    {
        Ptr<AntHocNetRouting> r = m_factory.Create<AntHocNetRouting>();
        node->AggregateObject(r);
        return r;
    }
    void Set(std::string name, const AttributeValue& value) { m_factory.Set(name, value); }

    // Instances returns the AntHocNet instance of every node (nullptr where none).
    static std::vector<Ptr<AntHocNetRouting>> Instances(NodeContainer c)
    {
        std::vector<Ptr<AntHocNetRouting>> v;
        for (uint32_t i = 0; i < c.GetN(); i++)
        {
            v.push_back(c.Get(i)->GetObject<AntHocNetRouting>());
        }
        return v;
    }

    int64_t AssignStreams(NodeContainer c, int64_t stream)
    {
        int64_t cur = stream;
        for (auto& r : Instances(c))
        {
            if (r)
            {
                cur += r->AssignStreams(cur);
            }
        }
        return cur - stream;
    }

  private:
    ObjectFactory m_factory;
};

} // namespace anthocnet
} // namespace ns3

#endif
